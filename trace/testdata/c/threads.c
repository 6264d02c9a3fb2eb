/* threads.c: threads record at once through residentlua_trace.h; the
 * trace must hold every event, in time order.
 * usage: threads OUT THREADS EVENTS */
#define RLT_IMPLEMENTATION
#include "residentlua_trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static rlt_recorder *rec;
static int events;

static void *record(void *arg) {
	const char *actor = arg;
	for (int i = 1; i <= events; i++)
		if (rlt_record(rec, actor, 0, "touch", "\"invocation\":%d", i) != 0)
			return "dropped";
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: threads OUT THREADS EVENTS\n");
		return 2;
	}
	int threads = atoi(argv[2]);
	events = atoi(argv[3]);
	const char *const kinds[] = {"touch", NULL};
	rlt_options o = {.path = argv[1], .kinds = kinds, .recorder = "threads.c \"test\""};
	rec = rlt_open(&o);
	if (!rec) {
		perror(argv[1]);
		return 1;
	}
	static char names[64][16];
	pthread_t th[64];
	for (int i = 0; i < threads && i < 64; i++) {
		snprintf(names[i], sizeof names[i], "gpu%d", i);
		pthread_create(&th[i], NULL, record, names[i]);
	}
	int failed = 0;
	for (int i = 0; i < threads && i < 64; i++) {
		void *res;
		pthread_join(th[i], &res);
		failed |= res != NULL;
	}
	return rlt_close(rec) != 0 || failed;
}
