/* SPDX-License-Identifier: MIT */
/* work.h - the functions the demo traces. */
#ifndef DEMO_WORK_H
#define DEMO_WORK_H

int step(int i);
int accumulate(int n);

#endif
