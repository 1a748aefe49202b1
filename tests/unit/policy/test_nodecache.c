/* The node table kept between decisions (psiplace_nodecache): when it
 * must be rebuilt, which field groups a rebuild holds, and that a rebuild
 * leaves nothing of the previous rows behind. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/nodecache.h"
#include "psiplace/policy.h"

static const struct psiplace_nodecache_stamp base = {
	.nodes = 4, .table = 1, .conf = 1, .metrics = 1, .fields = PSIPLACE_FIELDS_CONF,
};

static struct psiplace_nodecache built(void)
{
	struct psiplace_nodecache c = { 0 };
	psiplace_error_t err;

	cr_assert_eq(psiplace_nodecache_rebuild(&c, &base, &err), PSIPLACE_FIELDS_CONF);
	return c;
}

Test(nodecache, stale_before_the_first_build)
{
	struct psiplace_nodecache c = { 0 };

	cr_assert(psiplace_nodecache_stale(&c, &base));
}

Test(nodecache, fresh_for_the_stamp_it_was_built_for)
{
	struct psiplace_nodecache c = built();

	cr_assert_not(psiplace_nodecache_stale(&c, &base));
	cr_assert_eq(c.builds, 1);
	psiplace_nodecache_free(&c);
}

Test(nodecache, stale_when_the_node_count_changes)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;

	s.nodes = 5;
	cr_assert(psiplace_nodecache_stale(&c, &s));
	psiplace_nodecache_free(&c);
}

Test(nodecache, stale_when_the_table_changes_with_the_same_count)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;

	s.table = 2; /* a node deleted and another created: same count */
	cr_assert(psiplace_nodecache_stale(&c, &s));
	psiplace_nodecache_free(&c);
}

Test(nodecache, stale_when_the_configuration_or_metrics_change)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;

	s.conf = 2;
	cr_assert(psiplace_nodecache_stale(&c, &s));
	s = base;
	s.metrics = 2;
	cr_assert(psiplace_nodecache_stale(&c, &s));
	psiplace_nodecache_free(&c);
}

Test(nodecache, stale_for_a_field_group_not_held_fresh_for_fewer)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;

	s.fields = PSIPLACE_FIELDS_CONF | PSIPLACE_FIELDS_LOAD;
	cr_assert(psiplace_nodecache_stale(&c, &s));
	s.fields = 0;
	cr_assert_not(psiplace_nodecache_stale(&c, &s));
	psiplace_nodecache_free(&c);
}

Test(nodecache, rebuild_for_more_fields_keeps_the_groups_held)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;
	psiplace_error_t err;

	s.fields = PSIPLACE_FIELDS_LOAD;
	cr_assert_eq(psiplace_nodecache_rebuild(&c, &s, &err),
		     PSIPLACE_FIELDS_CONF | PSIPLACE_FIELDS_LOAD);
	/* alternating policies: neither needs another rebuild */
	cr_assert_not(psiplace_nodecache_stale(&c, &base));
	cr_assert_not(psiplace_nodecache_stale(&c, &s));
	psiplace_nodecache_free(&c);
}

Test(nodecache, rebuild_for_a_new_source_drops_the_groups_held)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;
	psiplace_error_t err;

	s.metrics = 2;
	s.fields = PSIPLACE_FIELDS_LOAD;
	cr_assert_eq(psiplace_nodecache_rebuild(&c, &s, &err), PSIPLACE_FIELDS_LOAD);
	cr_assert(psiplace_nodecache_stale(&c, &base));
	psiplace_nodecache_free(&c);
}

Test(nodecache, rebuild_resets_every_row_to_the_defaults)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;
	psiplace_error_t err;
	size_t i;

	c.rows[2].speed = 7.0;
	c.rows[2].priority = 3.0;
	c.rows[2].load5 = 1.5;
	s.conf = 2;
	s.nodes = 6;
	cr_assert_geq(psiplace_nodecache_rebuild(&c, &s, &err), 0);
	for (i = 0; i < 6; i++) {
		cr_assert_eq(c.rows[i].index, i);
		cr_assert_eq(c.rows[i].speed, 1.0);
		cr_assert_eq(c.rows[i].priority, 0.0);
		cr_assert_eq(c.rows[i].load5, 0.0);
		cr_assert_eq(c.rows[i].next_resv, -1);
		cr_assert_null(c.rows[i].priorityf);
	}
	cr_assert_eq(c.builds, 2);
	psiplace_nodecache_free(&c);
}

Test(nodecache, invalidate_makes_it_stale)
{
	struct psiplace_nodecache c = built();

	psiplace_nodecache_invalidate(&c);
	cr_assert(psiplace_nodecache_stale(&c, &base));
	psiplace_nodecache_free(&c);
}

Test(nodecache, free_leaves_it_empty_and_stale)
{
	struct psiplace_nodecache c = built();

	psiplace_nodecache_free(&c);
	cr_assert_null(c.rows);
	cr_assert_eq(c.cap, 0);
	cr_assert(psiplace_nodecache_stale(&c, &base));
}

Test(nodecache, too_many_nodes_is_an_error_and_leaves_it_stale)
{
	struct psiplace_nodecache c = built();
	struct psiplace_nodecache_stamp s = base;
	psiplace_error_t err;

	s.nodes = (uint64_t)UINT32_MAX + 1;
	cr_assert_eq(psiplace_nodecache_rebuild(&c, &s, &err), -1);
	cr_assert(psiplace_nodecache_stale(&c, &base));
	cr_assert(psiplace_nodecache_stale(&c, &s));
	psiplace_nodecache_free(&c);
}
