// fixture: idioms/fatal-path-mod-leak — a block stored in a struct is lost after a call whose only wild writes are on a path that exits
#include <stdio.h>
#include <stdlib.h>

typedef void (*sink_fn)(void *ctx, int code);

struct conn {
    char *buf;
    int len;
};

static int counts[16];
static sink_fn sinks[5];
static void *sink_ctx;

static void to_stderr(void *ctx, int code) { (void)ctx; counts[0] += code; }
static void to_syslog(void *ctx, int code) { (void)ctx; counts[1] += code; }
static void to_file(void *ctx, int code) { (void)ctx; counts[2] += code; }
static void to_socket(void *ctx, int code) { (void)ctx; counts[3] += code; }
static void to_null(void *ctx, int code) { (void)ctx; (void)code; }

void install_sinks(void)
{
    sinks[0] = to_stderr;
    sinks[1] = to_syslog;
    sinks[2] = to_file;
    sinks[3] = to_socket;
    sinks[4] = to_null;
}

/* A large reporting function. Only on its fatal path does it call through a
 * pointer with many possible targets (which may write anything), and that path
 * ends in exit(): a caller's state after `report` returns never sees it, so
 * what report may change is `counts` alone. */
static void report(int code)
{
    int level = code % 7;
    if (code < 0) {
        sinks[-code % 5](sink_ctx, code);
        exit(1);
    }
    if (level == 1 && code > 1)
        counts[1] += 1;
    if (level == 2 && code > 2)
        counts[2] += 2;
    if (level == 3 && code > 3)
        counts[3] += 3;
    if (level == 4 && code > 4)
        counts[4] += 4;
    if (level == 5 && code > 5)
        counts[5] += 5;
    if (level == 6 && code > 6)
        counts[6] += 6;
    if (level == 0 && code > 7)
        counts[7] += 7;
    if (level == 1 && code > 8)
        counts[8] += 8;
    if (level == 2 && code > 9)
        counts[9] += 9;
    if (level == 3 && code > 10)
        counts[10] += 10;
    if (level == 4 && code > 11)
        counts[11] += 11;
    if (level == 5 && code > 12)
        counts[12] += 12;
    if (level == 6 && code > 13)
        counts[13] += 13;
    if (level == 0 && code > 14)
        counts[14] += 14;
    if (level == 1 && code > 15)
        counts[15] += 15;
    if (level == 2 && code > 16)
        counts[0] += 16;
    if (level == 3 && code > 17)
        counts[1] += 17;
    if (level == 4 && code > 18)
        counts[2] += 18;
    if (level == 5 && code > 19)
        counts[3] += 19;
    if (level == 6 && code > 20)
        counts[4] += 20;
    if (level == 0 && code > 21)
        counts[5] += 21;
    if (level == 1 && code > 22)
        counts[6] += 22;
    if (level == 2 && code > 23)
        counts[7] += 23;
    if (level == 3 && code > 24)
        counts[8] += 24;
    if (level == 4 && code > 25)
        counts[9] += 25;
    if (level == 5 && code > 26)
        counts[10] += 26;
    if (level == 6 && code > 27)
        counts[11] += 27;
    if (level == 0 && code > 28)
        counts[12] += 28;
    if (level == 1 && code > 29)
        counts[13] += 29;
    if (level == 2 && code > 30)
        counts[14] += 30;
    if (level == 3 && code > 31)
        counts[15] += 31;
    if (level == 4 && code > 32)
        counts[0] += 32;
    if (level == 5 && code > 33)
        counts[1] += 33;
    if (level == 6 && code > 34)
        counts[2] += 34;
    if (level == 0 && code > 35)
        counts[3] += 35;
    if (level == 1 && code > 36)
        counts[4] += 36;
    if (level == 2 && code > 37)
        counts[5] += 37;
    if (level == 3 && code > 38)
        counts[6] += 38;
    if (level == 4 && code > 39)
        counts[7] += 39;
    if (level == 5 && code > 40)
        counts[8] += 40;
    if (level == 6 && code > 41)
        counts[9] += 41;
    if (level == 0 && code > 42)
        counts[10] += 42;
    if (level == 1 && code > 43)
        counts[11] += 43;
    if (level == 2 && code > 44)
        counts[12] += 44;
    if (level == 3 && code > 45)
        counts[13] += 45;
    if (level == 4 && code > 46)
        counts[14] += 46;
    if (level == 5 && code > 47)
        counts[15] += 47;
    if (level == 6 && code > 48)
        counts[0] += 48;
    if (level == 0 && code > 49)
        counts[1] += 49;
    if (level == 1 && code > 50)
        counts[2] += 50;
    if (level == 2 && code > 51)
        counts[3] += 51;
    if (level == 3 && code > 52)
        counts[4] += 52;
    if (level == 4 && code > 53)
        counts[5] += 53;
    if (level == 5 && code > 54)
        counts[6] += 54;
    if (level == 6 && code > 55)
        counts[7] += 55;
    if (level == 0 && code > 56)
        counts[8] += 56;
    if (level == 1 && code > 57)
        counts[9] += 57;
    if (level == 2 && code > 58)
        counts[10] += 58;
    if (level == 3 && code > 59)
        counts[11] += 59;
    if (level == 4 && code > 60)
        counts[12] += 60;
    if (level == 5 && code > 61)
        counts[13] += 61;
    if (level == 6 && code > 62)
        counts[14] += 62;
    if (level == 0 && code > 63)
        counts[15] += 63;
    if (level == 1 && code > 64)
        counts[0] += 64;
    if (level == 2 && code > 65)
        counts[1] += 65;
    if (level == 3 && code > 66)
        counts[2] += 66;
    if (level == 4 && code > 67)
        counts[3] += 67;
    if (level == 5 && code > 68)
        counts[4] += 68;
    if (level == 6 && code > 69)
        counts[5] += 69;
    if (level == 0 && code > 70)
        counts[6] += 70;
    if (level == 1 && code > 71)
        counts[7] += 71;
    if (level == 2 && code > 72)
        counts[8] += 72;
    if (level == 3 && code > 73)
        counts[9] += 73;
    if (level == 4 && code > 74)
        counts[10] += 74;
    if (level == 5 && code > 75)
        counts[11] += 75;
    if (level == 6 && code > 76)
        counts[12] += 76;
    if (level == 0 && code > 77)
        counts[13] += 77;
    if (level == 1 && code > 78)
        counts[14] += 78;
    if (level == 2 && code > 79)
        counts[15] += 79;
    if (level == 3 && code > 80)
        counts[0] += 80;
    if (level == 4 && code > 81)
        counts[1] += 81;
    if (level == 5 && code > 82)
        counts[2] += 82;
    if (level == 6 && code > 83)
        counts[3] += 83;
    if (level == 0 && code > 84)
        counts[4] += 84;
    if (level == 1 && code > 85)
        counts[5] += 85;
    if (level == 2 && code > 86)
        counts[6] += 86;
    if (level == 3 && code > 87)
        counts[7] += 87;
    if (level == 4 && code > 88)
        counts[8] += 88;
    if (level == 5 && code > 89)
        counts[9] += 89;
    if (level == 6 && code > 90)
        counts[10] += 90;
    if (level == 0 && code > 91)
        counts[11] += 91;
    if (level == 1 && code > 92)
        counts[12] += 92;
    if (level == 2 && code > 93)
        counts[13] += 93;
    if (level == 3 && code > 94)
        counts[14] += 94;
    if (level == 4 && code > 95)
        counts[15] += 95;
    if (level == 5 && code > 96)
        counts[0] += 96;
    if (level == 6 && code > 97)
        counts[1] += 97;
    if (level == 0 && code > 98)
        counts[2] += 98;
    if (level == 1 && code > 99)
        counts[3] += 99;
    if (level == 2 && code > 100)
        counts[4] += 100;
    if (level == 3 && code > 101)
        counts[5] += 101;
    if (level == 4 && code > 102)
        counts[6] += 102;
    if (level == 5 && code > 103)
        counts[7] += 103;
    if (level == 6 && code > 104)
        counts[8] += 104;
    if (level == 0 && code > 105)
        counts[9] += 105;
    if (level == 1 && code > 106)
        counts[10] += 106;
    if (level == 2 && code > 107)
        counts[11] += 107;
    if (level == 3 && code > 108)
        counts[12] += 108;
    if (level == 4 && code > 109)
        counts[13] += 109;
    if (level == 5 && code > 110)
        counts[14] += 110;
    if (level == 6 && code > 111)
        counts[15] += 111;
    if (level == 0 && code > 112)
        counts[0] += 112;
    if (level == 1 && code > 113)
        counts[1] += 113;
    if (level == 2 && code > 114)
        counts[2] += 114;
    if (level == 3 && code > 115)
        counts[3] += 115;
    if (level == 4 && code > 116)
        counts[4] += 116;
    if (level == 5 && code > 117)
        counts[5] += 117;
    if (level == 6 && code > 118)
        counts[6] += 118;
    if (level == 0 && code > 119)
        counts[7] += 119;
    if (level == 1 && code > 120)
        counts[8] += 120;
}

/*
 * Idiom: as in fatal-path-mod-ok.c, but the buffer is dropped from the
 * struct while nothing else holds it. The path back to the allocation
 * crosses `report`, summarised by what its returning paths write (`counts`),
 * so the leak is found. Fixed twin: fatal-path-mod-ok.c.
 */
void conn_fill(struct conn *c, int n)
{
    char *p = malloc(n);
    if (p == NULL)
        return;
    c->buf = p;
    p = NULL;
    report(n);
    c->buf = NULL;                      // expect: leak c->buf
    c->len = 0;
}
