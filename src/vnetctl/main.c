// SPDX-License-Identifier: MIT
/* vnetctl - placeholder until its issue lands */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "vnetctl: not built yet\n");
	return 1;
}
