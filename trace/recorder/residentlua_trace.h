/*
 * residentlua_trace.h: record a run of a resident session as a residentlua
 * trace (JSON Lines, docs/traces.md), for `residentlua validate`.
 *
 * One file, no dependencies beyond C11 and POSIX threads. Each thread that
 * records gets a lock-free ring of its own (one producer, the thread; one
 * consumer, the writer thread), so recording never takes a lock and never
 * waits for I/O; a writer thread drains the rings every millisecond and
 * writes the events in time order.
 *
 * In exactly one C file of your program:
 *
 *     #define RLT_IMPLEMENTATION
 *     #include "residentlua_trace.h"
 *
 * and include it without the define anywhere else. Then:
 *
 *     rlt_options o = {.path = "run.jsonl", .recorder = "my-session 0.1", .deadlines = 1};
 *     rlt_recorder *r = rlt_open(&o);
 *     rlt_record(r, "host", session, "decide", "\"decision\":\"%s\"", "RUN");
 *     ...
 *     rlt_close(r);  // after every thread stopped recording
 *
 * rlt_record takes the event's fields after time, actor, session and kind
 * as a printf format that writes the rest of the JSON object (without the
 * braces and without a leading comma); NULL or "" for none. Each event's
 * time is CLOCK_MONOTONIC in ns, read when rlt_record is called: record a
 * step before another actor can see its effect (the store of the decision
 * before the word is stored, a program's retire before its completion is
 * signalled), so that the trace's order by time is an order in which the
 * other actors could have seen the steps.
 *
 * Ordering: the writer takes an instant W, then waits for each ring's
 * producer to finish the event it is recording, if any, and drains the
 * ring; any event recorded later is timed after W. It writes the drained
 * events timed before W, in time order (a thread's own in its order), and
 * keeps the rest for the next round. So the file is in time order.
 */
#ifndef RESIDENTLUA_TRACE_H
#define RESIDENTLUA_TRACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the trace format this header writes. */
#define RLT_VERSION 1

/* Events in each thread's ring, and the longest event line, in bytes. */
#ifndef RLT_RING_EVENTS
#define RLT_RING_EVENTS 4096
#endif
#ifndef RLT_LINE_BYTES
#define RLT_LINE_BYTES 512
#endif

typedef struct rlt_recorder rlt_recorder;

/* What rlt_open writes, and where. */
typedef struct {
	const char *path;         /* the trace's file, replaced if it exists */
	const char *const *kinds; /* the kinds the recorder can see, NULL-terminated; NULL: every kind */
	int deadlines;            /* every join event carries its "deadline" */
	int exact;                /* the times are exact (a simulation's), not a real clock's */
	const char *recorder;     /* free text naming what records; NULL for none */
} rlt_options;

/* rlt_open writes the header and starts the writer thread; NULL when the
 * file cannot be made (errno says why). */
rlt_recorder *rlt_open(const rlt_options *o);

/* rlt_now is the recorder's clock: CLOCK_MONOTONIC, in ns. */
uint64_t rlt_now(void);

/* rlt_record records one event at rlt_now(). actor is "host", "gpu",
 * "npu", "gpu1", ...; session 0 for none. It returns 0, or -1 when the
 * event's line is longer than RLT_LINE_BYTES (it is dropped and counted:
 * rlt_close fails). When the thread's ring is full it yields until the
 * writer has made room. */
int rlt_record(rlt_recorder *r, const char *actor, uint64_t session, const char *kind, const char *fields, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

/* rlt_close writes every event left, stops the writer and closes the file.
 * Every thread must have stopped recording. It returns 0, or -1 when an
 * event was dropped or the file could not be written. */
int rlt_close(rlt_recorder *r);

#ifdef __cplusplus
}
#endif

#endif /* RESIDENTLUA_TRACE_H */

#ifdef RLT_IMPLEMENTATION

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
	uint64_t time;
	uint64_t seq; /* the thread's own order */
	uint32_t ring; /* which thread's */
	uint32_t len;
	char line[RLT_LINE_BYTES];
} rlt_slot;

typedef struct rlt_ring {
	_Atomic uint64_t head;  /* written by the producer */
	_Atomic uint64_t tail;  /* written by the writer */
	_Atomic int busy;       /* the producer is between reading the clock and publishing */
	uint32_t id;
	struct rlt_ring *next;  /* the recorder's list, pushed once */
	rlt_slot slots[RLT_RING_EVENTS];
} rlt_ring;

struct rlt_recorder {
	uint64_t id; /* unique in the process: a thread's ring is found by it */
	FILE *out;
	pthread_t writer;
	_Atomic(rlt_ring *) rings;
	_Atomic uint32_t nrings;
	_Atomic int stop;
	_Atomic uint64_t dropped;
	int failed;
	rlt_slot **pending; /* drained, not yet written */
	size_t npending, cap;
};

static _Thread_local rlt_ring *rlt_tls_ring;
static _Thread_local uint64_t rlt_tls_owner; /* the id of the recorder rlt_tls_ring is of */
static _Atomic uint64_t rlt_next_id;

static const char *const rlt_all_kinds[] = {"open", "session", "submit", "submit.return", "decide", "store",
	"publish", "poison", "observe", "dispatch", "touch", "retire", "reset", "wait", "wait.undecided", "join",
	"wait.end", "check", "close.begin", "close", "alloc", "release", "quarantine", "quarantine.end", "fault", NULL};

uint64_t rlt_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* rlt_json_string writes s as a JSON string. */
static void rlt_json_string(FILE *f, const char *s) {
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static rlt_ring *rlt_ring_of(rlt_recorder *r) {
	if (rlt_tls_owner == r->id && rlt_tls_ring)
		return rlt_tls_ring;
	rlt_ring *ring = calloc(1, sizeof *ring);
	if (!ring)
		return NULL;
	ring->id = atomic_fetch_add(&r->nrings, 1);
	rlt_ring *head = atomic_load(&r->rings);
	do
		ring->next = head;
	while (!atomic_compare_exchange_weak(&r->rings, &head, ring));
	rlt_tls_owner = r->id;
	rlt_tls_ring = ring;
	return ring;
}

int rlt_record(rlt_recorder *r, const char *actor, uint64_t session, const char *kind, const char *fields, ...) {
	rlt_ring *ring = rlt_ring_of(r);
	if (!ring) {
		atomic_fetch_add(&r->dropped, 1);
		return -1;
	}
	uint64_t h = atomic_load_explicit(&ring->head, memory_order_relaxed);
	while (h - atomic_load_explicit(&ring->tail, memory_order_acquire) >= RLT_RING_EVENTS)
		sched_yield(); /* full: the writer drains it within a millisecond */
	rlt_slot *s = &ring->slots[h % RLT_RING_EVENTS];
	atomic_store(&ring->busy, 1); /* sequentially consistent: before the clock is read */
	uint64_t t = rlt_now();
	int n = session ? snprintf(s->line, sizeof s->line, "{\"time\":%llu,\"actor\":\"%s\",\"session\":%llu,\"kind\":\"%s\"",
				(unsigned long long)t, actor, (unsigned long long)session, kind)
			: snprintf(s->line, sizeof s->line, "{\"time\":%llu,\"actor\":\"%s\",\"kind\":\"%s\"",
				(unsigned long long)t, actor, kind);
	if (fields && *fields && n >= 0 && (size_t)n < sizeof s->line - 1) {
		s->line[n++] = ',';
		va_list ap;
		va_start(ap, fields);
		int m = vsnprintf(s->line + n, sizeof s->line - n, fields, ap);
		va_end(ap);
		n = m < 0 ? -1 : n + m;
	}
	if (n < 0 || (size_t)n + 2 >= sizeof s->line) {
		atomic_store_explicit(&ring->busy, 0, memory_order_release);
		atomic_fetch_add(&r->dropped, 1);
		return -1;
	}
	s->line[n++] = '}';
	s->line[n++] = '\n';
	s->len = (uint32_t)n;
	s->time = t;
	s->seq = h;
	s->ring = ring->id;
	atomic_store_explicit(&ring->head, h + 1, memory_order_release);
	atomic_store_explicit(&ring->busy, 0, memory_order_release);
	return 0;
}

static int rlt_before(const rlt_slot *a, const rlt_slot *b) {
	if (a->time != b->time)
		return a->time < b->time;
	if (a->ring != b->ring)
		return a->ring < b->ring;
	return a->seq < b->seq;
}

static int rlt_cmp(const void *pa, const void *pb) {
	const rlt_slot *a = *(rlt_slot *const *)pa, *b = *(rlt_slot *const *)pb;
	return rlt_before(a, b) ? -1 : rlt_before(b, a) ? 1 : 0;
}

/* rlt_drain moves every ring's events to pending, then writes those timed
 * before until (all when until is UINT64_MAX) in order. */
static void rlt_drain(rlt_recorder *r, uint64_t until) {
	for (rlt_ring *ring = atomic_load(&r->rings); ring; ring = ring->next) {
		while (atomic_load(&ring->busy))
			sched_yield();
		uint64_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
		uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
		for (; tail < head; tail++) {
			if (r->npending == r->cap) {
				size_t cap = r->cap ? 2 * r->cap : 1024;
				rlt_slot **p = realloc(r->pending, cap * sizeof *p);
				if (!p)
					break; /* left in the ring for the next round */
				r->pending = p;
				r->cap = cap;
			}
			rlt_slot *copy = malloc(sizeof *copy);
			if (!copy)
				break;
			*copy = ring->slots[tail % RLT_RING_EVENTS];
			r->pending[r->npending++] = copy;
		}
		atomic_store_explicit(&ring->tail, tail, memory_order_release);
	}
	qsort(r->pending, r->npending, sizeof *r->pending, rlt_cmp);
	size_t done = 0;
	for (; done < r->npending && r->pending[done]->time < until; done++) {
		if (fwrite(r->pending[done]->line, 1, r->pending[done]->len, r->out) != r->pending[done]->len)
			r->failed = 1;
		free(r->pending[done]);
	}
	memmove(r->pending, r->pending + done, (r->npending - done) * sizeof *r->pending);
	r->npending -= done;
}

static void *rlt_writer(void *arg) {
	rlt_recorder *r = arg;
	while (!atomic_load(&r->stop)) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		rlt_drain(r, rlt_now());
	}
	return NULL;
}

rlt_recorder *rlt_open(const rlt_options *o) {
	rlt_recorder *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->id = atomic_fetch_add(&rlt_next_id, 1) + 1;
	r->out = fopen(o->path, "w");
	if (!r->out) {
		int e = errno;
		free(r);
		errno = e;
		return NULL;
	}
	fprintf(r->out, "{\"trace\":\"residentlua\",\"version\":%d,\"clock\":\"%s\"", RLT_VERSION, o->exact ? "exact" : "real");
	if (o->deadlines)
		fputs(",\"deadlines\":true", r->out);
	if (o->recorder) {
		fputs(",\"recorder\":", r->out);
		rlt_json_string(r->out, o->recorder);
	}
	fputs(",\"kinds\":[", r->out);
	const char *const *k = o->kinds ? o->kinds : rlt_all_kinds;
	for (int i = 0; k[i]; i++) {
		if (i)
			fputc(',', r->out);
		rlt_json_string(r->out, k[i]);
	}
	fputs("]}\n", r->out);
	if (pthread_create(&r->writer, NULL, rlt_writer, r) != 0) {
		fclose(r->out);
		free(r);
		return NULL;
	}
	return r;
}

int rlt_close(rlt_recorder *r) {
	atomic_store(&r->stop, 1);
	pthread_join(r->writer, NULL);
	rlt_drain(r, UINT64_MAX);
	int failed = r->failed || atomic_load(&r->dropped) > 0;
	if (fclose(r->out) != 0)
		failed = 1;
	for (rlt_ring *ring = atomic_load(&r->rings), *next; ring; ring = next) {
		next = ring->next;
		free(ring);
	}
	free(r->pending);
	free(r);
	return failed ? -1 : 0;
}

#endif /* RLT_IMPLEMENTATION */
