// Verdicts copied from `reductio prove test-fixtures/idioms/error-path-leak.c:25 --format json`
// and `... error-path-ok.c:22`: the unit tests format what the server really sends.

export const LEAK_ANSWER = {
  verdicts: [
    {
      file: 'test-fixtures/idioms/error-path-leak.c',
      line: 25,
      column: 9,
      end_line: 25,
      end_column: 19,
      function: 'packet_checksum',
      verdict: 'leak',
      probe: 'return-local',
      variable: 'copy',
      message:
        '`copy` leaks: allocated at line 21, last reference lost here',
      allocation: [{ file: 'test-fixtures/idioms/error-path-leak.c', line: 21, column: 5, function: 'packet_checksum' }],
      trace: [
        { file: 'test-fixtures/idioms/error-path-leak.c', line: 21, column: 5, note: 'allocated by `malloc`' },
        { file: 'test-fixtures/idioms/error-path-leak.c', line: 22, column: 9, note: 'branch taken: `copy != NULL`' },
        { file: 'test-fixtures/idioms/error-path-leak.c', line: 24, column: 9, note: 'branch taken: `pkt->len < 0`' },
        { file: 'test-fixtures/idioms/error-path-leak.c', line: 25, column: 9, note: '`copy` goes out of scope' },
      ],
    },
    {
      file: 'test-fixtures/idioms/error-path-leak.c',
      line: 25,
      column: 9,
      end_line: 25,
      end_column: 19,
      function: 'packet_checksum',
      verdict: 'unproved',
      probe: 'return-local',
      variable: 'pkt',
      message:
        'unproved: depends on the callers of `packet_checksum` — leaks if, on entry, `pkt` holds the only reference to a heap block',
      allocation: [],
      trace: [],
      reason: 'input-dependent',
    },
  ],
};

export const PROVED_ANSWER = {
  verdicts: [
    {
      file: 'test-fixtures/idioms/error-path-ok.c',
      line: 25,
      column: 9,
      end_line: 25,
      end_column: 19,
      function: 'packet_checksum',
      verdict: 'proved',
      probe: 'return-local',
      variable: 'copy',
      message: 'proved leak-free: assuming `copy` held the last reference, line 24 `free(copy)` frees it',
      allocation: [],
      trace: [{ file: 'test-fixtures/idioms/error-path-ok.c', line: 24, column: 9, note: '`free(copy)` frees it' }],
    },
  ],
};

// `reductio prove test-fixtures/idioms/error-path-leak.c:21 --format json`: at the allocation, the
// value overwritten (proved) and the memory assigned (leaks at line 25).
export const ALLOCATION_ANSWER = {
  "verdicts": [
    {
      "file": "test-fixtures/idioms/error-path-leak.c",
      "line": 21,
      "column": 5,
      "end_line": 21,
      "end_column": 36,
      "function": "packet_checksum",
      "verdict": "proved",
      "probe": "allocation",
      "variable": "copy",
      "message": "proved leak-free: assuming `copy` held the last reference, line 18 the scope of `copy` begins here",
      "allocation": [],
      "trace": [
        {
          "file": "test-fixtures/idioms/error-path-leak.c",
          "line": 18,
          "column": 5,
          "note": "the scope of `copy` begins here"
        }
      ]
    }
  ],
  "assigned": [
    {
      "file": "test-fixtures/idioms/error-path-leak.c",
      "line": 21,
      "column": 5,
      "end_line": 21,
      "end_column": 36,
      "function": "packet_checksum",
      "variable": "copy",
      "verdict": "leak",
      "summary": "leaks at line 25",
      "paths": [
        {
          "kind": "null",
          "file": "test-fixtures/idioms/error-path-leak.c",
          "line": 22,
          "column": 9,
          "note": "`copy` is NULL on this path: no block to lose"
        },
        {
          "kind": "leak",
          "file": "test-fixtures/idioms/error-path-leak.c",
          "line": 25,
          "column": 9,
          "note": "`copy` goes out of scope: leaks",
          "allocated_here": true,
          "finding": {
            "file": "test-fixtures/idioms/error-path-leak.c",
            "line": 25,
            "column": 9,
            "end_line": 25,
            "end_column": 19,
            "function": "packet_checksum",
            "verdict": "leak",
            "probe": "return-local",
            "variable": "copy",
            "message": "memory allocated at test-fixtures/idioms/error-path-leak.c:21 leaks: the last reference `copy` is lost here",
            "allocation": [
              {
                "file": "test-fixtures/idioms/error-path-leak.c",
                "line": 21,
                "column": 5,
                "function": "packet_checksum"
              }
            ],
            "trace": [
              {
                "file": "test-fixtures/idioms/error-path-leak.c",
                "line": 21,
                "column": 5,
                "note": "allocated by `malloc`"
              },
              {
                "file": "test-fixtures/idioms/error-path-leak.c",
                "line": 22,
                "column": 9,
                "note": "branch taken: `copy != NULL`"
              },
              {
                "file": "test-fixtures/idioms/error-path-leak.c",
                "line": 24,
                "column": 9,
                "note": "branch taken: `pkt->len < 0`"
              },
              {
                "file": "test-fixtures/idioms/error-path-leak.c",
                "line": 25,
                "column": 9,
                "note": "`copy` goes out of scope"
              }
            ]
          }
        },
        {
          "kind": "freed",
          "file": "test-fixtures/idioms/error-path-leak.c",
          "line": 30,
          "column": 5,
          "note": "freed (`free(copy)`)"
        }
      ]
    }
  ]
};
