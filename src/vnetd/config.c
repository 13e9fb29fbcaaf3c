// SPDX-License-Identifier: MIT
/*
 * config.c - the ports of a config file (--config FILE), read at start
 * (cli.c) and again on SIGHUP (reload.c): one port spec per line, parsed
 * by port_spec.c like a --port group, each refusal naming FILE:LINE. A
 * line "--switch NAME" declares a switch as the option does (the switches
 * are made by cli.c at start and reload.c at SIGHUP, not here).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cfg.h"
#include "config.h"
#include "host_switch.h"
#include "port_spec.h"

#define CONFIG_SWITCH	"--switch"

/**
 * cli_add_port() - Parse one port spec into the next slot of @cfg
 * @cfg:	Configuration: its ports grow by one
 * @tmpl:	Defaults (the per-port options given outside --port)
 * @text:	The spec
 * @delims:	Characters between settings
 * @where:	What the reason starts with ("--port", "FILE:LINE:")
 * @why:	On failure, the reason
 *
 * Return: 0, or -EINVAL with @why set
 */
int cli_add_port(struct vnetd_cfg *cfg,
			const struct vnetd_port_cfg *tmpl, const char *text,
			const char *delims, const char *where, struct reason *why)
{
	struct reason inner = { 0 };

	if (cfg->nports >= VNETD_MAX_PORTS) {
		return reason_set(why, -EINVAL, "%s: too many ports (at most %d)", where,
				  VNETD_MAX_PORTS);
	}
	if (cli_port_parse(&cfg->ports[cfg->nports], tmpl, text, delims,
			   &inner)) {
		return reason_set(why, -EINVAL, "%s%s", where, inner.msg);
	}
	cfg->nports++;
	return 0;
}

/*
 * A "--switch NAME" line (@p past "--switch"): NAME into @cfg->sw_conf.
 * Return: 0, or -EINVAL with @why set ("FILE:LINE: --switch NAME: ...")
 */
static int config_switch(struct vnetd_cfg *cfg, char *p, const char *where,
			 struct reason *why)
{
	struct reason inner = { 0 };
	char *name = p + strspn(p, " \t="), *end;
	unsigned int i;

	end = name + strcspn(name, " \t");
	if (*end) {
		*end++ = '\0';
		end += strspn(end, " \t");
	}
	if (name == p || !*name)
		return reason_set(why, -EINVAL, "%s --switch: needs a switch name (--switch NAME)",
				  where);
	if (*end)
		return reason_set(why, -EINVAL, "%s --switch %s: '%s': unexpected (one name per --switch line)",
				  where, name, end);
	if (host_switch_name_check(name, &inner))
		return reason_set(why, -EINVAL, "%s --switch %s: %s", where, name,
				  inner.msg);
	for (i = 0; i < cfg->nsw_conf; i++)
		if (!strcmp(cfg->sw_conf[i], name))
			return 0;
	if (cfg->nsw_conf >= VNETD_MAX_SWITCHES)
		return reason_set(why, -EINVAL, "%s --switch %s: too many switches (at most %d)",
				  where, name, VNETD_MAX_SWITCHES);
	snprintf(cfg->sw_conf[cfg->nsw_conf++], VNETD_NAME_LEN, "%s", name);
	return 0;
}

/**
 * cli_config_read() - Add the ports of a config file to @cfg
 * @cfg:	Configuration: its ports grow by one per line
 * @tmpl:	Defaults for every line
 * @path:	The file: one port per line, KEY=VAL separated by ',', ' '
 *		or tabs, or "--switch NAME" (into @cfg->sw_conf); '#' starts
 *		a comment
 * @why:	On failure, "FILE:LINE: 'key=val': reason" (nothing printed)
 *
 * Used at start and by SIGHUP (reload.c). The ports it adds are marked
 * from_config and not yet given their defaults (cli_port_check()).
 *
 * Return: 0, or -EINVAL with @why set
 */
int cli_config_read(struct vnetd_cfg *cfg, const struct vnetd_port_cfg *tmpl,
		    const char *path, struct reason *why)
{
	char line[CLI_SPEC_MAX], where[VNETD_PATH_LEN + 16];
	unsigned int lineno = 0;
	struct stat st;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		return reason_set(why, -EINVAL, "--config %s: %s", path, strerror(errno));
	}
	/* fopen() opens a directory; only reading it fails, with EISDIR */
	if (!fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		reason_set(why, -EINVAL, "--config %s: is a directory (give a file of port lines)",
			   path);
		fclose(f);
		return -EINVAL;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		char *p = line, *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		p[strcspn(p, "\r\n")] = '\0';
		p += strspn(p, " \t,");
		if (!*p)
			continue;
		snprintf(where, sizeof(where), "%s:%u:", path, lineno);
		if (!strncmp(p, CONFIG_SWITCH, strlen(CONFIG_SWITCH))) {
			ret = config_switch(cfg, p + strlen(CONFIG_SWITCH),
					    where, why);
			continue;
		}
		ret = cli_add_port(cfg, tmpl, p, ", \t", where, why);
		if (!ret)
			cfg->ports[cfg->nports - 1].from_config = true;
	}
	fclose(f);
	return ret;
}
