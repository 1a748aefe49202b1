/* What the stand-in select_cons_tres.so (fake_cons_tres.c) answers from
 * select_p_node_init, and the counters it exports for the test. */
#ifndef PSIPLACE_FAKE_CONS_TRES_H
#define PSIPLACE_FAKE_CONS_TRES_H

#define FAKE_READY 4242    /* init() had finished */
#define FAKE_NOT_READY -42 /* called before init() finished */

#endif
