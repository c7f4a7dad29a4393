/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * crowd.c - a library whose sites need thunks and find no free page in
 * reach: this program, linked with libmcount.a far from its libraries
 * (run.sh's FAR, as far/prog), dlopens libcrowd.so (argv[1]), whose
 * constructor maps every free page within CROWD_REACH of its text (the
 * backend's shortest call) before the runtime boots it.  Its two
 * functions must then be enabled (thunks in the rest of its code
 * segment's last page), call back once per call, and stop when
 * disabled.  Prints PASS:/FAIL: lines; exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mcount.h>

static int fails;

#define CHECK(cond, ...) do {						\
	int ok_ = (cond);						\
									\
	printf(ok_ ? "PASS: " : "FAIL: ");				\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
	fails += !ok_;							\
} while (0)

static unsigned long watched[2], hits[2], strays;

MCOUNT_NOTRACE static void callback(unsigned long func, unsigned long caller)
{
	(void)caller;
	for (int i = 0; i < 2; i++) {
		if (func == watched[i]) {
			__atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_fetch_add(&strays, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	unsigned long (*crowd_free)(unsigned long *);
	int (*crowd_call)(int);
	unsigned long mapped = 0, left;
	int sum = 0, err;
	void *h;

	CHECK(mcount_booted(), "booted");
	h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	if (!h) {
		printf("FAIL: dlopen %s: %s\n", argc > 1 ? argv[1] : "(none)",
		       dlerror());
		return 1;
	}
	crowd_free = (unsigned long (*)(unsigned long *))dlsym(h, "crowd_free");
	crowd_call = (int (*)(int))dlsym(h, "crowd_call");
	watched[0] = (unsigned long)dlsym(h, "crowd_leaf");
	watched[1] = (unsigned long)crowd_call;
	if (!crowd_free || !crowd_call || !watched[0]) {
		printf("FAIL: libcrowd.so's functions: %s\n", dlerror());
		return 1;
	}
	left = crowd_free(&mapped);
	CHECK(mapped > 0 && left == 0,
	      "no page free within reach of libcrowd.so's text (%lu pages "
	      "mapped by its constructor, %lu left)", mapped, left);
	mcount_set_callback(callback);
	err = mcount_enable_name("libcrowd.so:crowd_leaf");
	CHECK(err == MCOUNT_OK, "enable crowd_leaf (%s)", mcount_strerror(err));
	err = mcount_enable_name("libcrowd.so:crowd_call");
	CHECK(err == MCOUNT_OK, "enable crowd_call (%s)", mcount_strerror(err));
	for (int i = 0; i < 10; i++)
		sum += crowd_call(i);
	CHECK(sum == 135 && hits[0] == 10 && hits[1] == 10 && !strays,
	      "10 calls each, 10 callbacks each (%lu %lu, %lu stray, sum %d)",
	      hits[0], hits[1], strays, sum);
	mcount_disable_name("libcrowd.so:crowd_leaf");
	mcount_disable_name("libcrowd.so:crowd_call");
	sum = crowd_call(1);
	CHECK(sum == 3 && hits[0] == 10 && hits[1] == 10,
	      "disabled: no more callbacks");
	return fails ? 1 : 0;
}
