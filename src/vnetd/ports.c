// SPDX-License-Identifier: MIT
/*
 * ports.c - the table of ports at run time: VNETD_MAX_PORTS slots, slot i
 * serving the configuration's ports[i] (a slot freed by `port del` keeps
 * its place until reused: struct vnetd_port @used). main.c starts the
 * ports of the command line and config file in it; reload.c adds, removes
 * and changes ports; the control socket, the metrics listener and the
 * upgrade read it. Main thread only.
 */
#include <stddef.h>

#include "cfg.h"
#include "ports.h"
#include "vnetd.h"

/**
 * struct ports_table - The slots and their count
 * @slot:	The ports; large, so static
 * @n:		Slots in use or used before: the configuration's nports,
 *		which the parser and reload.c grow
 */
static struct {
	struct vnetd_port slot[VNETD_MAX_PORTS];
	const unsigned int *n;
} ports_tab;

/**
 * ports_init() - Give the table its count
 * @nports:	The configuration's slot count (struct vnetd_cfg @nports),
 *		read on every ports_get()
 *
 * Context: main thread, before any port starts
 * Return: the array of VNETD_MAX_PORTS slots, all free
 */
struct vnetd_port *ports_init(const unsigned int *nports)
{
	ports_tab.n = nports;
	return ports_tab.slot;
}

/**
 * ports_get() - The port array as it is now
 * @nports:	Slots in use or used before (output): skip !used ones
 *
 * Return: the array; @nports is 0 before ports_init()
 */
struct vnetd_port *ports_get(unsigned int *nports)
{
	*nports = ports_tab.n ? *ports_tab.n : 0;
	return ports_tab.slot;
}

/**
 * ports_slot() - The slot of a port
 * @p:		A port of the table (from ports_init() or ports_get())
 *
 * Return: its index, the slot reload_port_spec() and the configuration's
 *	   ports[] use
 */
unsigned int ports_slot(const struct vnetd_port *p)
{
	return (unsigned int)(p - ports_tab.slot);
}
