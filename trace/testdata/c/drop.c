/* drop.c: an event longer than a line is dropped, the events around it
 * are kept, and rlt_close reports the loss.
 * usage: drop OUT; exits 0 when the header behaved so. */
#define RLT_IMPLEMENTATION
#include "residentlua_trace.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
	if (argc != 2)
		return 2;
	rlt_recorder *rec = rlt_open(&(rlt_options){.path = argv[1]});
	if (!rec)
		return 2;
	char why[RLT_LINE_BYTES + 1];
	memset(why, 'x', sizeof why - 1);
	why[sizeof why - 1] = 0;
	int before = rlt_record(rec, "host", 0, "fault", "\"site\":\"before\"");
	int dropped = rlt_record(rec, "host", 0, "fault", "\"site\":\"long\",\"why\":\"%s\"", why);
	int after = rlt_record(rec, "host", 0, "fault", "\"site\":\"after\"");
	int closed = rlt_close(rec);
	printf("%d %d %d %d\n", before, dropped, after, closed);
	return before == 0 && dropped == -1 && after == 0 && closed == -1 ? 0 : 1;
}
