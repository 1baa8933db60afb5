/* SPDX-License-Identifier: BSD-3-Clause */
#include "worker.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "backend.h"
#include "holders.h"
#include "reconcile.h"

#define WATCH_MS 500 /* how often an idle worker looks at the connection to slicepathd */
#define REAP_S 1     /* how often it looks for endpoints whose holding process is gone */

struct fifo {
	struct job *head, *tail;
};

struct worker {
	struct ctld *ctld;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct fifo todo, done;
	bool quit;
	bool connected; /* as of the last look */
	time_t reaped;  /* when it last looked for gone holders */
	time_t retried; /* when it last tried the slices not in force again */
	void (*finished)(void *arg);
	void *arg;
};

static void
push(struct fifo *f, struct job *j)
{
	j->next = NULL;
	if (f->tail != NULL)
		f->tail->next = j;
	else
		f->head = j;
	f->tail = j;
}

static struct job *
pop(struct fifo *f)
{
	struct job *j = f->head;

	if (j != NULL) {
		f->head = j->next;
		if (f->head == NULL)
			f->tail = NULL;
	}
	return j;
}

/* Connected to slicepathd, having replayed the stored state since connecting? */
static void
watch_backend(struct worker *w)
{
	struct ctld *c = w->ctld;

	if (w->connected && !backend_alive(c->backend))
		w->connected = false;
	if (!w->connected && backend_connect(c->backend)) {
		w->connected = true;
		reconcile_all(c);
	}
}

/* The next job, or NULL after WATCH_MS without one; *quit when told to stop. */
static struct job *
next_job(struct worker *w, bool *quit)
{
	struct timespec until;
	struct job *j;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += WATCH_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->quit && w->todo.head == NULL &&
	       pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
		;
	j = w->quit ? NULL : pop(&w->todo);
	*quit = w->quit;
	pthread_mutex_unlock(&w->lock);
	return j;
}

static void *
run(void *arg)
{
	struct worker *w = arg;
	bool quit = false;

	while (!quit) {
		struct job *j = next_job(w, &quit);

		if (quit)
			break;
		watch_backend(w);
		if (w->connected && time(NULL) - w->reaped >= REAP_S) {
			holders_reap(w->ctld);
			w->reaped = time(NULL);
		}
		if (w->connected && time(NULL) - w->retried >= CTLD_RETRY_S) {
			reconcile_retry(w->ctld);
			w->retried = time(NULL);
		}
		if (j == NULL)
			continue;
		j->reply = ctld_handle(w->ctld, &j->who, j->line, j->len);
		pthread_mutex_lock(&w->lock);
		push(&w->done, j);
		pthread_mutex_unlock(&w->lock);
		w->finished(w->arg);
	}
	return NULL;
}

struct worker *
worker_start(struct ctld *c, void (*finished)(void *arg), void *arg)
{
	struct worker *w = calloc(1, sizeof(*w));

	if (w == NULL)
		return NULL;
	w->ctld = c;
	w->finished = finished;
	w->arg = arg;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, run, w) != 0) {
		free(w);
		return NULL;
	}
	return w;
}

void
worker_submit(struct worker *w, struct job *j)
{
	pthread_mutex_lock(&w->lock);
	push(&w->todo, j);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

struct job *
worker_take_done(struct worker *w)
{
	struct job *j;

	pthread_mutex_lock(&w->lock);
	j = pop(&w->done);
	pthread_mutex_unlock(&w->lock);
	return j;
}

void
worker_stop(struct worker *w)
{
	struct job *j;

	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	while ((j = pop(&w->todo)) != NULL || (j = pop(&w->done)) != NULL) {
		free(j->line);
		free(j->reply);
		free(j);
	}
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	free(w);
}
