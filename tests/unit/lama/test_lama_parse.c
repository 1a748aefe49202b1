/* LAMA strings: accepted forms and the exact message of every error. */
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"

static psiplace_error_t err;

static const char *map_err(const char *s)
{
	enum psiplace_level l[PSIPLACE_LEVEL_COUNT];
	unsigned n;

	err.text[0] = '\0';
	cr_assert_eq(psiplace_lama_parse_map(s, "--psi-lama-map", l, &n, &err), -1,
		     "map '%s' accepted", s);
	return err.text;
}

static const char *bind_err(const char *s)
{
	enum psiplace_level l;
	unsigned w;

	cr_assert_eq(psiplace_lama_parse_bind(s, "--psi-lama-bind", &w, &l, &err), -1,
		     "bind '%s' accepted", s);
	return err.text;
}

static const char *mppr_err(const char *s)
{
	struct psiplace_lama_mppr m[PSIPLACE_LEVEL_COUNT];
	unsigned n;

	cr_assert_eq(psiplace_lama_parse_mppr(s, "--psi-lama-mppr", m, &n, &err), -1,
		     "mppr '%s' accepted", s);
	return err.text;
}

static void opts_with(struct psiplace_lama_opts *o, const char *const *kv)
{
	psiplace_lama_opts_init(o);
	for (; kv[0]; kv += 2)
		cr_assert_eq(psiplace_lama_apply(o, kv[0], kv[1], &err), 0, "%s=%s: %s",
			     kv[0], kv[1] ? kv[1] : "", err.text);
	cr_assert_eq(psiplace_lama_finish(o, &err), 0, "%s", err.text);
}

Test(lama_parse, map_accepts_every_letter_in_any_order)
{
	struct psiplace_lama_opts o;
	static const char *const kv[] = { "--psi-lama-map", "L1hL3cnNsbL2", NULL };

	opts_with(&o, kv);
	cr_assert_eq(o.map_len, 9);
	cr_assert_str_eq(o.map_str, "L1hL3cnNsbL2");
	cr_assert_eq(o.map[0], PSIPLACE_LEVEL_L1);
	cr_assert_eq(o.map[8], PSIPLACE_LEVEL_L2);
}

Test(lama_parse, map_errors_name_position_and_rule)
{
	cr_assert_str_eq(map_err(""), "--psi-lama-map: the value is empty");
	cr_assert_str_eq(map_err(NULL), "--psi-lama-map: the value is empty");
	cr_assert_str_eq(map_err("sbxnh"),
			 "--psi-lama-map: 'sbxnh' position 3: unknown level 'x'; accepted: h c s L1 L2 L3 N b n");
	cr_assert_str_eq(map_err("sL4nh"),
			 "--psi-lama-map: 'sL4nh' position 3: 'L' must be followed by 1, 2 or 3 (cache level)");
	cr_assert_str_eq(map_err("snhL"),
			 "--psi-lama-map: 'snhL' position 5: 'L' must be followed by 1, 2 or 3 (cache level)");
	cr_assert_str_eq(map_err("sbnhs"),
			 "--psi-lama-map: 'sbnhs' position 5: level 's' given twice (first at position 1); each level at most once");
	cr_assert_str_eq(map_err("L2nhL2"),
			 "--psi-lama-map: 'L2nhL2' position 5: level 'L2' given twice (first at position 1); each level at most once");
	cr_assert_str_eq(map_err("sbch"),
			 "--psi-lama-map: 'sbch' lacks 'n'; a map must contain n (node) and h (hardware thread)");
	cr_assert_str_eq(map_err("sbcn"),
			 "--psi-lama-map: 'sbcn' lacks 'h'; a map must contain n (node) and h (hardware thread)");
	cr_assert_str_eq(map_err("s\xffnh"),
			 "--psi-lama-map: 's\\xffnh' position 2: unknown level '\\xff'; accepted: h c s L1 L2 L3 N b n");
	cr_assert_str_eq(map_err("s nh"),
			 "--psi-lama-map: 's nh' position 2: unknown level ' '; accepted: h c s L1 L2 L3 N b n");
}

Test(lama_parse, map_longer_than_limit_is_an_error)
{
	char s[PSIPLACE_LAMA_MAXSTR + 2];

	memset(s, 'h', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	cr_assert_str_eq(map_err(s),
			 "--psi-lama-map: 'hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...' is longer than 256 characters");
}

Test(lama_parse, bind_accepts_width_and_level)
{
	enum psiplace_level l;
	unsigned w;

	cr_assert_eq(psiplace_lama_parse_bind("1c", "b", &w, &l, &err), 0);
	cr_assert(w == 1 && l == PSIPLACE_LEVEL_CORE);
	cr_assert_eq(psiplace_lama_parse_bind("999L3", "b", &w, &l, &err), 0);
	cr_assert(w == 999 && l == PSIPLACE_LEVEL_L3);
	cr_assert_eq(psiplace_lama_parse_bind("02s", "b", &w, &l, &err), 0);
	cr_assert(w == 2 && l == PSIPLACE_LEVEL_SOCKET);
}

Test(lama_parse, bind_errors_name_position_and_rule)
{
	cr_assert_str_eq(bind_err(""), "--psi-lama-bind: the value is empty");
	cr_assert_str_eq(bind_err("c"),
			 "--psi-lama-bind: 'c' position 1: expected the width (1 to 3 digits) before the level, e.g. 1c or 2s");
	cr_assert_str_eq(bind_err("1234c"),
			 "--psi-lama-bind: '1234c' position 4: the width has more than 3 digits");
	cr_assert_str_eq(bind_err("0c"), "--psi-lama-bind: '0c' position 1: the width must be 1 to 999");
	cr_assert_str_eq(bind_err("1"),
			 "--psi-lama-bind: '1' position 2: a level is missing; accepted: h c s L1 L2 L3 N b n");
	cr_assert_str_eq(bind_err("1x"),
			 "--psi-lama-bind: '1x' position 2: unknown level 'x'; accepted: h c s L1 L2 L3 N b n");
	cr_assert_str_eq(bind_err("1cs"),
			 "--psi-lama-bind: '1cs' position 3: unexpected text after the level; bind takes one width and one level");
	cr_assert_str_eq(bind_err("1L"),
			 "--psi-lama-bind: '1L' position 3: 'L' must be followed by 1, 2 or 3 (cache level)");
}

Test(lama_parse, mppr_accepts_both_forms_and_none)
{
	struct psiplace_lama_mppr m[PSIPLACE_LEVEL_COUNT];
	unsigned n;

	cr_assert_eq(psiplace_lama_parse_mppr("1c,2:n,4L2", "m", m, &n, &err), 0, "%s", err.text);
	cr_assert_eq(n, 3);
	cr_assert(m[0].limit == 1 && m[0].level == PSIPLACE_LEVEL_CORE);
	cr_assert(m[1].limit == 2 && m[1].level == PSIPLACE_LEVEL_NODE);
	cr_assert(m[2].limit == 4 && m[2].level == PSIPLACE_LEVEL_L2);
	cr_assert_eq(psiplace_lama_parse_mppr("NONE", "m", m, &n, &err), 0);
	cr_assert_eq(n, 0);
}

Test(lama_parse, mppr_errors_name_position_and_rule)
{
	cr_assert_str_eq(mppr_err(""), "--psi-lama-mppr: the value is empty");
	cr_assert_str_eq(mppr_err("1:c,1:c"),
			 "--psi-lama-mppr: '1:c,1:c' position 5: level 'c' given twice (first at position 1); each level at most once");
	cr_assert_str_eq(mppr_err("1:c,"),
			 "--psi-lama-mppr: '1:c,' position 5: empty item; expected N:level");
	cr_assert_str_eq(mppr_err(",1:c"),
			 "--psi-lama-mppr: ',1:c' position 1: empty item; expected N:level");
	cr_assert_str_eq(mppr_err(":c"),
			 "--psi-lama-mppr: ':c' position 1: expected a number of processes, as in 1:c");
	cr_assert_str_eq(mppr_err("1:c,0:s"),
			 "--psi-lama-mppr: '1:c,0:s' position 5: limit 0; at least 1 process per level");
	cr_assert_str_eq(mppr_err("99999999999:c"),
			 "--psi-lama-mppr: '99999999999:c' position 1: limit above 1000000000");
	cr_assert_str_eq(mppr_err("1:x"),
			 "--psi-lama-mppr: '1:x' position 3: unknown level 'x'; accepted: h c s L1 L2 L3 N b n");
	cr_assert_str_eq(mppr_err("1:cc"),
			 "--psi-lama-mppr: '1:cc' position 4: expected ',' or the end after the level");
	cr_assert_str_eq(mppr_err("2:"),
			 "--psi-lama-mppr: '2:' position 3: a level is missing; accepted: h c s L1 L2 L3 N b n");
}

Test(lama_parse, order_accepts_letters_and_words)
{
	int seq = -1;

	cr_assert_eq(psiplace_lama_parse_order("S", "o", &seq, &err), 0);
	cr_assert_eq(seq, 1);
	cr_assert_eq(psiplace_lama_parse_order("natural", "o", &seq, &err), 0);
	cr_assert_eq(seq, 0);
	cr_assert_eq(psiplace_lama_parse_order("x", "--psi-lama-order", &seq, &err), -1);
	cr_assert_str_eq(err.text, "--psi-lama-order: 'x' is not an order; accepted: s (sequential) or n (natural)");
	cr_assert_eq(psiplace_lama_parse_order("", "--psi-lama-order", &seq, &err), -1);
	cr_assert_str_eq(err.text, "--psi-lama-order: the value is empty");
}

Test(lama_parse, simple_levels_translate_per_spec_table)
{
	static const char *const in[] = { "slot", "core", "hwthread", "l1cache", "l2cache",
					  "l3cache", "socket", "numa", "board", "Node" };
	static const char *const out[] = { "csbnh", "csbnh", "hcsbn", "L1csbnh", "L2csbnh",
					   "L3csbnh", "sbnch", "Nsbnch", "bsnch", "nsbch" };
	const char *m;
	size_t i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		cr_assert_eq(psiplace_lama_simple_map(in[i], "--psi-map-by", &m, &err), 0);
		cr_assert_str_eq(m, out[i], "%s", in[i]);
	}
	cr_assert_eq(psiplace_lama_simple_map("sockets", "--psi-map-by", &m, &err), -1);
	cr_assert_str_eq(err.text,
			 "--psi-map-by: 'sockets' is not a level; accepted: slot hwthread core l1cache l2cache l3cache socket numa board node");
	cr_assert_eq(psiplace_lama_simple_map("none", "--psi-map-by", &m, &err), -1);
}

Test(lama_parse, simple_bind_levels_and_none)
{
	enum psiplace_level l;
	unsigned w;

	cr_assert_eq(psiplace_lama_simple_bind("L3CACHE", "--psi-bind-to", &w, &l, &err), 0);
	cr_assert(w == 1 && l == PSIPLACE_LEVEL_L3);
	cr_assert_eq(psiplace_lama_simple_bind("none", "--psi-bind-to", &w, &l, &err), 0);
	cr_assert_eq(w, 0);
	cr_assert_eq(psiplace_lama_simple_bind("1c", "--psi-bind-to", &w, &l, &err), -1);
	cr_assert_str_eq(err.text,
			 "--psi-bind-to: '1c' is not a level; accepted: none slot hwthread core l1cache l2cache l3cache socket numa board node");
}

Test(lama_opts, defaults_are_by_core_bound_to_core)
{
	struct psiplace_lama_opts o;
	char b[64];

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_finish(&o, &err), 0);
	cr_assert_str_eq(o.map_str, "cL1L2L3sNbnh");
	psiplace_lama_bind_string(&o, b, sizeof(b));
	cr_assert_str_eq(b, "1c");
	psiplace_lama_mppr_string(&o, b, sizeof(b));
	cr_assert_str_eq(b, "none");
	cr_assert_eq(o.sequential, 0);
	cr_assert_eq(o.requested, 0);
}

Test(lama_opts, option_wins_over_variable_in_either_order)
{
	struct psiplace_lama_opts o;

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_map", "nsbch", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-map", "sbnch", &err), 0);
	cr_assert_str_eq(o.map_str, "sbnch");
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_map", "hcsbn", &err), 0);
	cr_assert_str_eq(o.map_str, "sbnch");
	/* an overridden variable is not even parsed */
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_map", "junk", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_ordering", "s", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-order", "n", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_ordering", "s", &err), 0);
	cr_assert_eq(o.sequential, 0);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_mppr", "1:c", &err), 0);
	cr_assert_eq(o.nmppr, 1);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_bind", "2c", &err), 0);
	cr_assert_eq(o.bind_width, 2);
	cr_assert_eq(o.requested, 1);
}

Test(lama_opts, unknown_names_are_not_ours)
{
	struct psiplace_lama_opts o;

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-tpp", "2", &err), -1);
	cr_assert_str_eq(err.text, "'--psi-tpp': not a LAMA option or variable");
	cr_assert_eq(psiplace_lama_apply(&o, NULL, "2", &err), -1);
	cr_assert_str_eq(err.text, "'': not a LAMA option or variable");
	cr_assert_eq(o.requested, 0);
}

Test(lama_opts, map_by_with_lama_map_is_an_error)
{
	struct psiplace_lama_opts o;

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-map-by", "socket", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-map", "sbnch", &err), -1);
	cr_assert_str_eq(err.text, "--psi-map-by and --psi-lama-map both given; use one of them");
	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-bind", "1c", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-bind-to", "core", &err), -1);
	cr_assert_str_eq(err.text, "--psi-lama-bind and --psi-bind-to both given; use one of them");
}

Test(lama_opts, bad_values_name_the_variable)
{
	struct psiplace_lama_opts o;

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_bind", "c1", &err), -1);
	cr_assert_str_eq(err.text,
			 "OMPI_MCA_rmaps_lama_bind: 'c1' position 1: expected the width (1 to 3 digits) before the level, e.g. 1c or 2s");
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-order", NULL, &err), -1);
	cr_assert_str_eq(err.text, "--psi-lama-order: the value is empty");
}

Test(lama_opts, expert_map_must_contain_binding_level)
{
	struct psiplace_lama_opts o;

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-map", "sbnh", &err), 0);
	cr_assert_eq(psiplace_lama_finish(&o, &err), -1);
	cr_assert_str_eq(err.text,
			 "--psi-lama-map: 'sbnh' lacks 'c', the level of the binding '1c' (the default binding); a map must contain n, h and the binding level");
	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "OMPI_MCA_rmaps_lama_map", "csbnh", &err), 0);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-lama-bind", "1L3", &err), 0);
	cr_assert_eq(psiplace_lama_finish(&o, &err), -1);
	cr_assert_str_eq(err.text,
			 "OMPI_MCA_rmaps_lama_map: 'csbnh' lacks 'L3', the level of the binding '1L3' (--psi-lama-bind); a map must contain n, h and the binding level");
}

Test(lama_opts, simple_map_gains_the_binding_level_after_its_first_letter)
{
	struct psiplace_lama_opts o;
	static const char *const kv[] = { "--psi-map-by", "socket", "--psi-bind-to", "numa", NULL };
	static const char *const none[] = { "--psi-map-by", "socket", "--psi-bind-to", "none", NULL };

	opts_with(&o, kv);
	cr_assert_str_eq(o.map_str, "sNbnch");
	opts_with(&o, none);
	cr_assert_str_eq(o.map_str, "sbnch");
	cr_assert_eq(o.bind_width, 0);
}

Test(lama_opts, oversubscribe_flag_takes_no_value)
{
	struct psiplace_lama_opts o;

	psiplace_lama_opts_init(&o);
	cr_assert_eq(psiplace_lama_apply(&o, "--psi-oversubscribe", NULL, &err), 0);
	cr_assert_eq(o.oversubscribe, 1);
}
