/*
 * session.c: an implementation of the resident session in C, written from
 * docs/protocol.md alone, over a mock of two devices: a GPU and an NPU, each
 * a thread that runs one program at a time, which polls its own view of the
 * session's startup word. It records everything through
 * residentlua_trace.h, so that `residentlua validate` can check it.
 *
 * usage: session OUT SEED RUNS BUG
 *
 * It runs RUNS sessions one after another, each with faults drawn from
 * SEED: a device rejects the dispatch, a release of the decision to one
 * device fails, a program hangs, a program retires with an error. BUG 0 is
 * the correct implementation; each other BUG breaks one rule:
 *   1  no ABORT after a rejected submit
 *   2  a publication failure does not poison
 *   3  the decision recorded only after it is published
 *   4  the second join gets the whole timeout, not what the first left
 *   5  a close that frees the memory of a device that has not retired
 *   6  a quarantine that holds the GPU alone
 */
#define RLT_IMPLEMENTATION
#include "residentlua_trace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WAIT = 0, RUN = 1, ABORT = 2 };
enum { GPU = 0, NPU = 1 };
enum { RUNNING = 0, RETIRED = 1, FAILED = 2, STOPPED = 3 }; /* a completion */

static rlt_recorder *rec;
static int bug;
static const uint64_t LINE_BYTES = 64, PAYLOAD_BYTES = 4096;
static const uint64_t TIMEOUT = 3000000; /* ns: every Wait's and close's */

static void pause_ns(long ns) {
	struct timespec ts = {0, ns};
	nanosleep(&ts, NULL);
}

/* ---- the mock devices ---- */

typedef struct {
	const char *name;
	pthread_t thread;
	atomic_int busy;               /* an invocation is outstanding: set by dispatch, cleared by the device */
	atomic_int stop;               /* a reset asks the program to stop */
	atomic_int quit;
	atomic_int done;               /* the outstanding invocation's completion */
	_Atomic(atomic_uint *) view;   /* the device's view of the startup word */
	uint64_t invocation, session, payload;
	int rounds, hang, error;       /* the program's shape and its faults */
} device;

static device devs[2] = {{.name = "gpu"}, {.name = "npu"}};

/* program is what a device runs: it polls its view of the startup word;
 * under ABORT it retires without touching the payload, under RUN it runs
 * its rounds (or hangs until reset, or retires with an error). */
static void program(device *d) {
	unsigned v;
	while ((v = atomic_load(atomic_load(&d->view))) == WAIT) {
		if (atomic_load(&d->stop))
			goto stopped;
		pause_ns(2000);
	}
	rlt_record(rec, d->name, d->session, "observe", "\"invocation\":%llu,\"decision\":\"%s\"",
		(unsigned long long)d->invocation, v == RUN ? "RUN" : "ABORT");
	if (v == RUN) {
		while (d->hang) {
			if (atomic_load(&d->stop))
				goto stopped;
			pause_ns(20000);
		}
		for (int i = 0; i < d->rounds; i++) {
			if (atomic_load(&d->stop))
				goto stopped;
			rlt_record(rec, d->name, d->session, "touch", "\"invocation\":%llu,\"buffer\":%llu",
				(unsigned long long)d->invocation, (unsigned long long)d->payload);
			pause_ns(5000);
		}
	}
	/* Recorded before the completion is signalled: the host joins after it. */
	rlt_record(rec, d->name, d->session, "retire", "\"invocation\":%llu,\"result\":\"%s\"",
		(unsigned long long)d->invocation, d->error ? "error" : "ok");
	atomic_store(&d->done, d->error ? FAILED : RETIRED);
	return;
stopped:
	atomic_store(&d->done, STOPPED);
}

static void *device_thread(void *arg) {
	device *d = arg;
	for (;;) {
		while (!atomic_load(&d->busy)) {
			if (atomic_load(&d->quit))
				return NULL;
			pause_ns(2000);
		}
		program(d);
		atomic_store(&d->busy, 0);
	}
}

/* reset stops what runs on d and records the reset. */
static void reset(device *d) {
	int running = atomic_load(&d->busy) && atomic_load(&d->done) == RUNNING;
	atomic_store(&d->stop, 1);
	while (atomic_load(&d->busy))
		pause_ns(2000);
	atomic_store(&d->stop, 0);
	if (running)
		rlt_record(rec, d->name, 0, "reset", "\"invocation\":%llu,\"result\":\"ok\"", (unsigned long long)d->invocation);
	else
		rlt_record(rec, d->name, 0, "reset", "\"result\":\"ok\"");
}

/* ---- the session ---- */

typedef struct {
	uint64_t id, line, payload;
	unsigned decision; /* recorded: WAIT until decided */
	int poisoned, retired, closed;
	int accepted[2];
	atomic_uint view[2]; /* each device's view of the startup word */
	int reject[2], publish_fails[2];
} session;

static uint64_t next_id = 1;

static void alloc(session *s, uint64_t buffer, uint64_t bytes) {
	rlt_record(rec, "host", s->id, "alloc", "\"buffer\":%llu,\"bytes\":%llu", (unsigned long long)buffer, (unsigned long long)bytes);
}

static void open_session(session *s) {
	s->id = next_id++;
	s->line = next_id++;
	s->payload = next_id++;
	atomic_store(&s->view[GPU], WAIT);
	atomic_store(&s->view[NPU], WAIT);
	alloc(s, s->line, LINE_BYTES);
	rlt_record(rec, "host", s->id, "open", "\"line\":%llu", (unsigned long long)s->line);
	alloc(s, s->payload, PAYLOAD_BYTES);
	rlt_record(rec, "host", s->id, "session", "\"gpu\":\"gpu\",\"npu\":\"npu\"");
}

static int ready(session *s) { return !s->closed && !s->poisoned && s->decision == WAIT; }

/* decide records the decision, then publishes it: the store of the word,
 * then a release to each device. A failed release poisons the session. */
static int decide(session *s, unsigned v) {
	if (!ready(s))
		return -1;
	if (bug != 3)
		s->decision = v;
	rlt_record(rec, "host", s->id, "decide", "\"decision\":\"%s\"", v == RUN ? "RUN" : "ABORT");
	rlt_record(rec, "host", s->id, "store", "\"buffer\":%llu,\"value\":\"%s\"", (unsigned long long)s->line, v == RUN ? "RUN" : "ABORT");
	for (int k = GPU; k <= NPU; k++) {
		if (s->publish_fails[k]) {
			rlt_record(rec, "host", s->id, "fault", "\"site\":\"host.publish\"");
			if (bug != 2) {
				s->poisoned = 1;
				rlt_record(rec, "host", s->id, "poison", "\"why\":\"the release to the %s failed\"", devs[k].name);
			}
			rlt_record(rec, "host", s->id, "publish", "\"decision\":\"%s\",\"result\":\"failed\"", v == RUN ? "RUN" : "ABORT");
			return -1;
		}
		atomic_store(&s->view[k], v);
	}
	rlt_record(rec, "host", s->id, "publish", "\"decision\":\"%s\",\"result\":\"ok\"", v == RUN ? "RUN" : "ABORT");
	if (bug == 3)
		s->decision = v;
	return 0;
}

static int submit(session *s, int who, int rounds, int hang, int error) {
	const char *p = who == GPU ? "gpu" : "npu";
	int err = 0;
	device *d = &devs[who];
	if (!ready(s) || s->accepted[who]) {
		err = -1;
	} else if (s->reject[who] || atomic_load(&d->busy)) {
		if (s->reject[who])
			rlt_record(rec, "host", s->id, "fault", "\"site\":\"%s.dispatch\"", p);
		rlt_record(rec, "host", s->id, "submit", "\"participant\":\"%s\",\"result\":\"rejected\"", p);
		if (bug != 1)
			decide(s, ABORT); /* the peer must not wait for a RUN that never comes */
		err = -1;
	} else {
		d->invocation = next_id++;
		d->session = s->id;
		d->payload = s->payload;
		d->rounds = rounds;
		d->hang = hang;
		d->error = error;
		atomic_store(&d->view, &s->view[who]);
		atomic_store(&d->done, RUNNING);
		rlt_record(rec, d->name, s->id, "dispatch", "\"invocation\":%llu,\"reach\":[%llu,%llu]",
			(unsigned long long)d->invocation, (unsigned long long)s->line, (unsigned long long)s->payload);
		atomic_store(&d->busy, 1);
		s->accepted[who] = 1;
		rlt_record(rec, "host", s->id, "submit", "\"participant\":\"%s\",\"result\":\"accepted\"", p);
	}
	rlt_record(rec, "host", s->id, "submit.return", "\"participant\":\"%s\",\"result\":\"%s\"", p, err ? "error" : "ok");
	return err;
}

static int start(session *s) {
	if (!ready(s) || !s->accepted[GPU] || !s->accepted[NPU])
		return -1;
	return decide(s, RUN);
}

/* join waits for one participant until deadline. */
static const char *join(session *s, int who, uint64_t deadline, int *failed) {
	if (!s->accepted[who])
		return "absent";
	device *d = &devs[who];
	for (;;) {
		int done = atomic_load(&d->done);
		if (done == RETIRED)
			return "retired";
		if (done == FAILED || done == STOPPED) {
			*failed = 1;
			return "error";
		}
		if (rlt_now() >= deadline)
			return "timeout";
		pause_ns(5000);
	}
}

/* wait joins the GPU, then the NPU, both by one deadline. */
static int wait_session(session *s, uint64_t timeout) {
	if (s->decision == WAIT) {
		rlt_record(rec, "host", s->id, "wait.undecided", NULL);
		return -1;
	}
	uint64_t began = rlt_now();
	rlt_record(rec, "host", s->id, "wait", "\"timeout\":%llu", (unsigned long long)timeout);
	int failed = 0;
	const char *names[2] = {"gpu", "npu"};
	const char *results[2];
	for (int who = GPU; who <= NPU; who++) {
		uint64_t deadline = began + timeout;
		if (bug == 4 && who == NPU)
			deadline = rlt_now() + timeout;
		results[who] = join(s, who, deadline, &failed);
		rlt_record(rec, "host", s->id, "join", "\"participant\":\"%s\",\"result\":\"%s\",\"deadline\":%llu",
			names[who], results[who], (unsigned long long)deadline);
	}
	if (failed && !s->poisoned) {
		s->poisoned = 1;
		rlt_record(rec, "host", s->id, "poison", "\"why\":\"a participant failed\"");
	}
	int ok = 1;
	for (int who = GPU; who <= NPU; who++)
		ok = ok && (!strcmp(results[who], "retired") || !strcmp(results[who], "absent"));
	if (ok) {
		s->retired = 1;
		if (s->decision == RUN)
			for (int who = GPU; who <= NPU; who++)
				rlt_record(rec, "host", s->id, "check", "\"participant\":\"%s\",\"result\":\"passed\"", names[who]);
	}
	rlt_record(rec, "host", s->id, "wait.end", "\"retired\":%s", ok ? "true" : "false");
	return ok ? 0 : -1;
}

static void release(session *s, uint64_t buffer, uint64_t bytes) {
	rlt_record(rec, "host", s->id, "release", "\"buffer\":%llu,\"bytes\":%llu", (unsigned long long)buffer, (unsigned long long)bytes);
}

/* close aborts an undecided session, joins a decided one that has not
 * retired, then frees everything, or quarantines it until both devices
 * are reset. */
static void close_session(session *s) {
	rlt_record(rec, "host", s->id, "close.begin", "\"timeout\":%llu", (unsigned long long)TIMEOUT);
	if (s->decision == WAIT && !s->poisoned)
		decide(s, ABORT);
	if (!s->retired && s->decision != WAIT)
		wait_session(s, TIMEOUT);
	s->closed = 1;
	if ((s->retired && !s->poisoned) || bug == 5) {
		release(s, s->payload, PAYLOAD_BYTES);
		release(s, s->line, LINE_BYTES);
		rlt_record(rec, "host", s->id, "close", "\"result\":\"retired\"");
		for (int k = GPU; k <= NPU; k++)
			if (atomic_load(&devs[k].busy))
				reset(&devs[k]); /* what the broken close left running */
		return;
	}
	rlt_record(rec, "host", s->id, "quarantine", "\"bytes\":%llu,\"devices\":[%s],\"buffers\":[%llu,%llu]",
		(unsigned long long)(LINE_BYTES + PAYLOAD_BYTES), bug == 6 ? "\"gpu\"" : "\"gpu\",\"npu\"",
		(unsigned long long)s->line, (unsigned long long)s->payload);
	rlt_record(rec, "host", s->id, "close", "\"result\":\"quarantined\"");
	/* The quarantine ends once each device is reset. */
	reset(&devs[GPU]);
	reset(&devs[NPU]);
	release(s, s->line, LINE_BYTES);
	release(s, s->payload, PAYLOAD_BYTES);
	rlt_record(rec, "host", s->id, "quarantine.end", "\"bytes\":%llu", (unsigned long long)(LINE_BYTES + PAYLOAD_BYTES));
}

/* ---- the runs ---- */

static uint64_t rng;

static uint64_t next(void) { /* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static int chance(int percent) { return (int)(next() % 100) < percent; }

int main(int argc, char **argv) {
	if (argc != 5) {
		fprintf(stderr, "usage: session OUT SEED RUNS BUG\n");
		return 2;
	}
	rng = strtoull(argv[2], NULL, 10);
	int runs = atoi(argv[3]);
	bug = atoi(argv[4]);
	rlt_options o = {.path = argv[1], .deadlines = 1, .recorder = "session.c"};
	rec = rlt_open(&o);
	if (!rec) {
		perror(argv[1]);
		return 1;
	}
	for (int k = GPU; k <= NPU; k++)
		pthread_create(&devs[k].thread, NULL, device_thread, &devs[k]);
	for (int run = 0; run < runs; run++) {
		session *s = calloc(1, sizeof *s);
		open_session(s);
		for (int k = GPU; k <= NPU; k++) {
			s->reject[k] = chance(6);
			s->publish_fails[k] = chance(4);
		}
		int first = chance(50) ? GPU : NPU;
		for (int i = 0; i < 2; i++) {
			int who = i == 0 ? first : 1 - first;
			int hang = chance(5), error = !hang && chance(5);
			if (hang || error)
				rlt_record(rec, "host", s->id, "fault", "\"site\":\"%s.run\"", who == GPU ? "gpu" : "npu");
			submit(s, who, 1 + (int)(next() % 4), hang, error);
		}
		if (chance(90))
			start(s);
		if (chance(70))
			wait_session(s, 200000 + next() % 3000000);
		close_session(s);
		free(s);
	}
	for (int k = GPU; k <= NPU; k++) {
		atomic_store(&devs[k].quit, 1);
		pthread_join(devs[k].thread, NULL);
	}
	return rlt_close(rec) != 0;
}
