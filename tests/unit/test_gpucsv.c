/* Unit tests of the nvidia-smi CSV parser on real nvidia-smi output: with
 * and without units, [N/A] and [Not Supported] values, header lines.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/read/gpucsv.h"

#include <math.h>

static void test_with_units(void)
{
	struct gpu_sample s;
	/* nvidia-smi --format=csv,noheader --query-gpu=timestamp,index,utilization.gpu,
	 *   utilization.memory,memory.used,memory.total,power.draw,clocks.sm */
	CHECK(gpucsv_parse("2024/05/02 14:03:21.517, 0, 97 %, 41 %, 71234 MiB, 81559 MiB, 412.37 W, 1980 MHz",
			   &s) == 0);
	CHECK_STR(s.timestamp, "2024/05/02 14:03:21.517");
	CHECK(s.index == 0);
	CHECK_NEAR(s.util_gpu_pct, 97, 0);
	CHECK_NEAR(s.util_mem_pct, 41, 0);
	CHECK_NEAR(s.mem_used_mib, 71234, 0);
	CHECK_NEAR(s.mem_total_mib, 81559, 0);
	CHECK_NEAR(s.power_w, 412.37, 1e-9);
	CHECK_NEAR(s.sm_clock_mhz, 1980, 0);
}

static void test_nounits_and_na(void)
{
	struct gpu_sample s;
	CHECK(gpucsv_parse("2024/05/02 14:03:22.017, 3, 0, 0, 1, 16384, [N/A], 300\r\n", &s) == 0);
	CHECK(s.index == 3);
	CHECK(isnan(s.power_w));
	CHECK_NEAR(s.mem_total_mib, 16384, 0);
	CHECK(gpucsv_parse("2024/05/02 14:03:22.017, 1, [Not Supported], [Not Supported], 500 MiB, 15360 MiB, 24.51 W, 1590 MHz",
			   &s) == 0);
	CHECK(isnan(s.util_gpu_pct) && isnan(s.util_mem_pct));
	CHECK_NEAR(s.power_w, 24.51, 1e-9);
}

static void test_rejects(void)
{
	struct gpu_sample s;
	CHECK(gpucsv_parse("timestamp, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], memory.total [MiB], power.draw [W], clocks.sm [MHz]",
			   &s) < 0);
	CHECK(gpucsv_parse("2024/05/02 14:03:22.017, 0, 97 %", &s) < 0);
	CHECK(gpucsv_parse("2024/05/02 14:03:22.017, 0, lots, 41 %, 1 MiB, 2 MiB, 3 W, 4 MHz", &s) <
	      0);
	CHECK(gpucsv_parse("", &s) < 0);
	double v;
	CHECK(gpucsv_value(" 12 furlongs", &v) < 0);
	CHECK(gpucsv_value(" 2 GiB", &v) == 0 && v == 2048);
}

int main(void)
{
	RUN(test_with_units);
	RUN(test_nounits_and_na);
	RUN(test_rejects);
	HARNESS_END();
}
