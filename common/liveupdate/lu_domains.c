/* SPDX-License-Identifier: MIT */
/*
 * The domains and vCPUs a live update's handover says (lu_priv.h): the
 * records of a taken handover copied as read, or each built domain's
 * view (its p2m's format and geometry, its table ranges and extents,
 * its kernel's name) through the writer (handover_write.c). The same
 * calls size the handover (a counting writer) and write it (in the
 * freeze). Boot CPU; the domains no longer change.
 */
#include <keel/domain.h>
#include <keel/handover.h>
#include <keel/liveupdate.h>
#include <keel/p2m.h>
#include <keel/p2m_format.h>
#include <keel/string.h>

#include "lu_priv.h"

static void table_cb(paddr_t s, paddr_t e, void *arg)
{
	ho_domain_table(arg, pa_val(s), pa_val(e));
}

static void extent_cb(uint64_t gpa, paddr_t p, uint64_t pages, void *arg)
{
	ho_domain_extent(arg, gpa, pa_val(p), pages);
}

static uint8_t p2m_format_id(const struct p2m *p)
{
	if (p->fmt == &p2m_format_ept)
		return HANDOVER_P2M_EPT;
	if (p->fmt == &p2m_format_npt)
		return HANDOVER_P2M_NPT;
	return p->fmt == &p2m_format_vmsa_s2 ? HANDOVER_P2M_VMSA
					     : HANDOVER_P2M_NONE;
}

static void write_view(struct ho_writer *w, const struct domain_view *v)
{
	struct handover_domain d;

	memset(&d, 0, sizeof(d));
	d.id = v->id;
	d.origin = v->origin;
	d.node = v->node;
	strlcpy(d.name, v->name, sizeof(d.name));
	d.p2m_root = pa_val(v->p2m->root);
	d.p2m_format = p2m_format_id(v->p2m);
	d.p2m_start_level = (uint8_t)v->p2m->start_level;
	d.p2m_root_order = (uint8_t)v->p2m->root_order;
	d.p2m_ipa_bits = (uint8_t)v->p2m->ipa_bits;
	d.p2m_vmid = v->p2m->vmid;
	d.vcpus = v->vcpus;
	ho_domain_begin(w, &d);
	if (domain_view_tables(v, table_cb, w) ||
	    domain_view_extents(v, extent_cb, w))
		w->overflow = true; /* a broken table: no handover */
	ho_domain_kernel(w, v->kernel);
	ho_domain_end(w);
}

/* Every domain: @in's when a handover was taken, else the built ones. */
void lu_write_domains(struct ho_writer *w, const struct domain_set *ds,
		      const struct bi_handover *in)
{
	struct domain_view v;

	if (in) {
		for (unsigned int i = 0; i < in->domain_count; i++)
			ho_domain_copy(w, &in->domains[i].view,
				       in->domains[i].rec,
				       in->domains[i].rec_bytes);
		return;
	}
	for (unsigned int i = 0; i < domain_set_stats(ds)->count; i++)
		if (domain_view(ds, i, &v) && v.p2m)
			write_view(w, &v);
}

/* The vCPU records of @vc, after the domains. */
void lu_write_vcpus(struct ho_writer *w, const struct lu_vcpus *vc)
{
	struct handover_vcpu rec;
	const void *state;

	for (unsigned int i = 0; vc && vc->get(vc->arg, i, &rec, &state); i++)
		ho_vcpu(w, &rec, state);
}

unsigned int lu_built_domains(const struct domain_set *ds)
{
	struct domain_view v;
	unsigned int n = 0;

	for (unsigned int i = 0; i < domain_set_stats(ds)->count; i++)
		n += domain_view(ds, i, &v) && v.p2m;
	return n;
}
