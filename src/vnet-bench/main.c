// SPDX-License-Identifier: MIT
/* vnet-bench - placeholder until its issue lands */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "vnet-bench: not built yet\n");
	return 1;
}
