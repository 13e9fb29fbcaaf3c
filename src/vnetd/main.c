// SPDX-License-Identifier: MIT
/* vnetd - placeholder until its issue lands */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "vnetd: not built yet\n");
	return 1;
}
