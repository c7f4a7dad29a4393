/* SPDX-License-Identifier: MIT */
#ifndef FW_WORK_H
#define FW_WORK_H

int work_step(int x);	/* x * x + 1 */
int work_run(int n);	/* work_step(0) + ... + work_step(n - 1) */
int work_victim(int x);	/* x ^ 0x55: its site gets corrupted */

#endif
