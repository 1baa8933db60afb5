-- SPDX-License-Identifier: BSD-3-Clause
-- pktgen-DPDK script: replay the substrate frames loaded on port 0 (-s 0:FILE.pcap, made
-- by scripts/demo-traffic.py --forward-only) into slicepathd at a rate, read what comes
-- back on port 1, and write one CSV row a second, then the totals (docs/testing.md,
-- "pktgen-DPDK"). Environment:
--   PG_SECONDS  how long to send (default 10)
--   PG_RATE     percent of port 0's link rate (default 10)
--   PG_RESULT   the CSV file (default /tmp/pktgen-slicepath.csv)
-- pktgen's own "pktgen" table is all it uses: no require.

local seconds = tonumber(os.getenv("PG_SECONDS") or "10")
local rate = tonumber(os.getenv("PG_RATE") or "10")
local out = assert(io.open(os.getenv("PG_RESULT") or "/tmp/pktgen-slicepath.csv", "w"))

pktgen.screen("off")
pktgen.pcap("0", "on")
pktgen.set("0", "rate", rate)
pktgen.clr()
out:write("t,tx_pps,rx_pps\n")
pktgen.start("0")
for t = 1, seconds do
	pktgen.delay(1000)
	local tx = pktgen.portStats("0", "rate")[0]
	local rx = pktgen.portStats("1", "rate")[1]
	out:write(string.format("%d,%d,%d\n", t, tx.pkts_tx, rx.pkts_rx))
	out:flush()
end
pktgen.stop("0")
pktgen.delay(500)
local s0 = pktgen.portStats("0", "port")[0]
local s1 = pktgen.portStats("1", "port")[1]
out:write(string.format("# total: port 0 sent %d, port 1 received %d\n", s0.opackets,
	s1.ipackets))
out:close()
pktgen.quit()
