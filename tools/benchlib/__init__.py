# SPDX-License-Identifier: BSD-3-Clause
"""slicepath-bench's pieces: the device under test (dut), the generator (gen), plots
(plot), ratios to baselines (ratio) and one module per scenario."""
