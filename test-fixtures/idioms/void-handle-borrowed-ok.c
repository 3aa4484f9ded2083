// fixture: idioms/void-handle-borrowed-ok — a block borrowed through a `void *` handle of a struct declared nowhere is not proved
#include <stddef.h>

/*
 * The parser context and its handler are a library's (declared nowhere here); the
 * application keeps its own context in the handler's `_private`, a `void *`. `ctx` and `r`
 * are borrowed: at the end the block is still referenced from `data->sax->_private`, unless
 * `entity`, a function without a body here, cleared that reference. Nothing is proved: a
 * member read through an untyped base keeps all memory as its region (a struct declared
 * nowhere has no member regions to narrow it to), and a region left empty there made the
 * hit `data->sax->_private` a contradiction.
 */
struct conn {
	int log;
};

struct req {
	struct conn *connection;
};

struct myctx {
	struct req *request;
};

void entity(void *data, const char *name);
void log_it(int log, const char *s);

void decl(void *data, const char *name)
{
	struct pctx *ctxt = data;
	struct myctx *ctx;
	struct req *r;

	ctx = ctxt->sax->_private;
	r = ctx->request;
	log_it(r->connection->log, name ? name : "");
	entity(data, name);
} // expect: unproved input-dependent; unproved input-dependent
