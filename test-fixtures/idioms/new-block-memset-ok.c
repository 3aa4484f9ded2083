// fixture: idioms/new-block-memset-ok — a call that clears only the block it allocates cannot drop a reference
// mode: strict
// analyze: job_start
#include <stdlib.h>
#include <string.h>

struct chunk {
    struct chunk *next;
};

struct arena {
    struct chunk *list;
};

struct job {
    char *name;
    char *data;
};

static int counts[16];

/* An arena allocator that clears what it hands out. The block comes from
 * malloc in this very call, so `memset` through the `void *` writes memory no
 * caller could have known before: the call changes `a->list`, `next` of the
 * new chunk and `counts`, nothing else. It is large, so a probe that had to
 * walk it would run out of budget. */
void *arena_alloc(struct arena *a, size_t n)
{
    struct chunk *e = malloc(sizeof(struct chunk) + n);
    void *ret;
    int level = (int)(n % 7);
    if (e == NULL)
        abort();
    if (level == 1 && n > 1)
        counts[1] += 1;
    if (level == 2 && n > 2)
        counts[2] += 2;
    if (level == 3 && n > 3)
        counts[3] += 3;
    if (level == 4 && n > 4)
        counts[4] += 4;
    if (level == 5 && n > 5)
        counts[5] += 5;
    if (level == 6 && n > 6)
        counts[6] += 6;
    if (level == 0 && n > 7)
        counts[7] += 7;
    if (level == 1 && n > 8)
        counts[8] += 8;
    if (level == 2 && n > 9)
        counts[9] += 9;
    if (level == 3 && n > 10)
        counts[10] += 10;
    if (level == 4 && n > 11)
        counts[11] += 11;
    if (level == 5 && n > 12)
        counts[12] += 12;
    if (level == 6 && n > 13)
        counts[13] += 13;
    if (level == 0 && n > 14)
        counts[14] += 14;
    if (level == 1 && n > 15)
        counts[15] += 15;
    if (level == 2 && n > 16)
        counts[0] += 16;
    if (level == 3 && n > 17)
        counts[1] += 17;
    if (level == 4 && n > 18)
        counts[2] += 18;
    if (level == 5 && n > 19)
        counts[3] += 19;
    if (level == 6 && n > 20)
        counts[4] += 20;
    if (level == 0 && n > 21)
        counts[5] += 21;
    if (level == 1 && n > 22)
        counts[6] += 22;
    if (level == 2 && n > 23)
        counts[7] += 23;
    if (level == 3 && n > 24)
        counts[8] += 24;
    if (level == 4 && n > 25)
        counts[9] += 25;
    if (level == 5 && n > 26)
        counts[10] += 26;
    if (level == 6 && n > 27)
        counts[11] += 27;
    if (level == 0 && n > 28)
        counts[12] += 28;
    if (level == 1 && n > 29)
        counts[13] += 29;
    if (level == 2 && n > 30)
        counts[14] += 30;
    if (level == 3 && n > 31)
        counts[15] += 31;
    if (level == 4 && n > 32)
        counts[0] += 32;
    if (level == 5 && n > 33)
        counts[1] += 33;
    if (level == 6 && n > 34)
        counts[2] += 34;
    if (level == 0 && n > 35)
        counts[3] += 35;
    if (level == 1 && n > 36)
        counts[4] += 36;
    if (level == 2 && n > 37)
        counts[5] += 37;
    if (level == 3 && n > 38)
        counts[6] += 38;
    if (level == 4 && n > 39)
        counts[7] += 39;
    if (level == 5 && n > 40)
        counts[8] += 40;
    if (level == 6 && n > 41)
        counts[9] += 41;
    if (level == 0 && n > 42)
        counts[10] += 42;
    if (level == 1 && n > 43)
        counts[11] += 43;
    if (level == 2 && n > 44)
        counts[12] += 44;
    if (level == 3 && n > 45)
        counts[13] += 45;
    if (level == 4 && n > 46)
        counts[14] += 46;
    if (level == 5 && n > 47)
        counts[15] += 47;
    if (level == 6 && n > 48)
        counts[0] += 48;
    if (level == 0 && n > 49)
        counts[1] += 49;
    if (level == 1 && n > 50)
        counts[2] += 50;
    if (level == 2 && n > 51)
        counts[3] += 51;
    if (level == 3 && n > 52)
        counts[4] += 52;
    if (level == 4 && n > 53)
        counts[5] += 53;
    if (level == 5 && n > 54)
        counts[6] += 54;
    if (level == 6 && n > 55)
        counts[7] += 55;
    if (level == 0 && n > 56)
        counts[8] += 56;
    if (level == 1 && n > 57)
        counts[9] += 57;
    if (level == 2 && n > 58)
        counts[10] += 58;
    if (level == 3 && n > 59)
        counts[11] += 59;
    if (level == 4 && n > 60)
        counts[12] += 60;
    if (level == 5 && n > 61)
        counts[13] += 61;
    if (level == 6 && n > 62)
        counts[14] += 62;
    if (level == 0 && n > 63)
        counts[15] += 63;
    if (level == 1 && n > 64)
        counts[0] += 64;
    if (level == 2 && n > 65)
        counts[1] += 65;
    if (level == 3 && n > 66)
        counts[2] += 66;
    if (level == 4 && n > 67)
        counts[3] += 67;
    if (level == 5 && n > 68)
        counts[4] += 68;
    if (level == 6 && n > 69)
        counts[5] += 69;
    if (level == 0 && n > 70)
        counts[6] += 70;
    if (level == 1 && n > 71)
        counts[7] += 71;
    if (level == 2 && n > 72)
        counts[8] += 72;
    if (level == 3 && n > 73)
        counts[9] += 73;
    if (level == 4 && n > 74)
        counts[10] += 74;
    if (level == 5 && n > 75)
        counts[11] += 75;
    if (level == 6 && n > 76)
        counts[12] += 76;
    if (level == 0 && n > 77)
        counts[13] += 77;
    if (level == 1 && n > 78)
        counts[14] += 78;
    if (level == 2 && n > 79)
        counts[15] += 79;
    if (level == 3 && n > 80)
        counts[0] += 80;
    if (level == 4 && n > 81)
        counts[1] += 81;
    if (level == 5 && n > 82)
        counts[2] += 82;
    if (level == 6 && n > 83)
        counts[3] += 83;
    if (level == 0 && n > 84)
        counts[4] += 84;
    if (level == 1 && n > 85)
        counts[5] += 85;
    if (level == 2 && n > 86)
        counts[6] += 86;
    if (level == 3 && n > 87)
        counts[7] += 87;
    if (level == 4 && n > 88)
        counts[8] += 88;
    if (level == 5 && n > 89)
        counts[9] += 89;
    if (level == 6 && n > 90)
        counts[10] += 90;
    if (level == 0 && n > 91)
        counts[11] += 91;
    if (level == 1 && n > 92)
        counts[12] += 92;
    if (level == 2 && n > 93)
        counts[13] += 93;
    if (level == 3 && n > 94)
        counts[14] += 94;
    if (level == 4 && n > 95)
        counts[15] += 95;
    if (level == 5 && n > 96)
        counts[0] += 96;
    if (level == 6 && n > 97)
        counts[1] += 97;
    if (level == 0 && n > 98)
        counts[2] += 98;
    if (level == 1 && n > 99)
        counts[3] += 99;
    if (level == 2 && n > 100)
        counts[4] += 100;
    if (level == 3 && n > 101)
        counts[5] += 101;
    if (level == 4 && n > 102)
        counts[6] += 102;
    if (level == 5 && n > 103)
        counts[7] += 103;
    if (level == 6 && n > 104)
        counts[8] += 104;
    if (level == 0 && n > 105)
        counts[9] += 105;
    if (level == 1 && n > 106)
        counts[10] += 106;
    if (level == 2 && n > 107)
        counts[11] += 107;
    if (level == 3 && n > 108)
        counts[12] += 108;
    if (level == 4 && n > 109)
        counts[13] += 109;
    if (level == 5 && n > 110)
        counts[14] += 110;
    if (level == 6 && n > 111)
        counts[15] += 111;
    if (level == 0 && n > 112)
        counts[0] += 112;
    if (level == 1 && n > 113)
        counts[1] += 113;
    if (level == 2 && n > 114)
        counts[2] += 114;
    if (level == 3 && n > 115)
        counts[3] += 115;
    if (level == 4 && n > 116)
        counts[4] += 116;
    if (level == 5 && n > 117)
        counts[5] += 117;
    if (level == 6 && n > 118)
        counts[6] += 118;
    if (level == 0 && n > 119)
        counts[7] += 119;
    if (level == 1 && n > 120)
        counts[8] += 120;
    e->next = a->list;                  // expect: unproved budget
    a->list = e;
    ret = (char *)e + sizeof(struct chunk);  // expect: unproved budget
    memset(ret, 0, n);
    return ret;                         // expect: unproved budget
}

/*
 * Idiom: a job's name is set, its data comes from the arena (which clears the
 * block it returns with `memset` through a `void *`), and the name pointer is
 * cleared while the local `p` still holds the name, which is freed. Leaking
 * twin: new-block-memset-leak.c.
 */
void job_start(struct job *j, struct arena *a, size_t n)
{
    char *p = malloc(16);
    if (p == NULL)
        return;                         // expect: unproved input-dependent; unproved input-dependent
    j->name = p;                        // expect: unproved input-dependent
    j->data = arena_alloc(a, n);        // expect: unproved
    j->name = NULL;
    free(p);
}                                       // expect: unproved; unproved
