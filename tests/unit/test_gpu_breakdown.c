/* Unit tests of the GPU timeline's kernel classes: which kernel names count
 * as matrix kernels (the GEMM part of compute), on names from real traces.
 * SPDX-License-Identifier: MIT */
#include "harness.h"

#include "analyzers/gpu_breakdown.h"

static void test_matrix_kernels(void)
{
	static const char *const matrix[] = {
		"nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", /* cuBLAS, CUDA 12.8+ */
		"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4>(cutlass_80_tenso",
		"sm80_xmma_dgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_",
		"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1", /* rocBLAS */
		"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<(int)128, (int)128, (int)64>>",
		"fmha_cutlassF_f32_aligned_64x64_rf_sm80",
		"implicit_convolve_sgemm",
		"void at::native::conv_depthwise2d_forward_kernel<float>",
		"ampere_sgemm_128x64_tn",
	};
	static const char *const other[] = {
		"void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)",
		"void at::native::vectorized_elementwise_kernel<(int)8, at::native::bfloat16_copy_kernel_cuda>",
		"void convert_fp32_to_bf16_kernel(float const*, __nv_bfloat16*)",
		"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)",
		"void at::native::<unnamed>::vectorized_layer_norm_kernel<float, float, (bool)0>",
	};
	for (size_t i = 0; i < sizeof matrix / sizeof *matrix; i++)
		CHECK(gpu_breakdown_is_gemm(matrix[i]) == 1);
	for (size_t i = 0; i < sizeof other / sizeof *other; i++)
		CHECK(gpu_breakdown_is_gemm(other[i]) == 0);
}

int main(void)
{
	RUN(test_matrix_kernels);
	HARNESS_END();
}
