// The vector form of lvTangentStep (lvtangent.go), declared in
// lvtangent_amd64.go: four directions at a time in 256-bit registers,
// every operation in the scalar loop's order and rounding (no fused
// multiply-add), so the values are the same bit for bit.

#include "textflag.h"

// STAGE(TX, TY, A, B, X, Y, E, F, EP) puts one stage's tangent derivative
// for four directions in Y2 (K_x) and Y3 (K_y), from the stage input TX,
// TY, the stage's coefficients at the memory operands A … F and the
// forcing directions at (EP)(AX*1); Y4 and Y5 are scratch:
//
//	K_x = ((A·T_x − B·T_y) + dα·x) − (dβ·x)·y + e
//	K_y = ((E·T_x + F·T_y) + (dη·x)·y) − dγ·y
#define STAGE(TX, TY, A, B, X, Y, E, F, EP) \
	VMULPD A, TX, Y4; \
	VMULPD B, TY, Y5; \
	VSUBPD Y5, Y4, Y4; \
	VMOVUPD (R8)(AX*1), Y5; \
	VMULPD X, Y5, Y5; \
	VADDPD Y5, Y4, Y4; \
	VMOVUPD (R9)(AX*1), Y5; \
	VMULPD X, Y5, Y5; \
	VMULPD Y, Y5, Y5; \
	VSUBPD Y5, Y4, Y4; \
	VADDPD (EP)(AX*1), Y4, Y2; \
	VMULPD E, TX, Y4; \
	VMULPD F, TY, Y5; \
	VADDPD Y5, Y4, Y4; \
	VMOVUPD (R10)(AX*1), Y5; \
	VMULPD X, Y5, Y5; \
	VMULPD Y, Y5, Y5; \
	VADDPD Y5, Y4, Y4; \
	VMOVUPD (R11)(AX*1), Y5; \
	VMULPD Y, Y5, Y5; \
	VSUBPD Y5, Y4, Y3

// func lvTangentAVX(tx, ty, da, db, de, dg, e0, e1, e2 *float64, n int, c *lvStageCoefs)
//
// Advances directions 0..n−1 (n a multiple of 4) by one RK4 step. AX is
// the byte offset of the current four directions in every array; DX
// points at the coefficients (stage i's A, B, x, y, E, F at 192·i + 0,
// 32, …, 160; h/2, h, h/6 and 2 at 768, 800, 832, 864). Y0, Y1 hold
// T, Y10, Y11 a stage's input, Y2, Y3 its K, Y8, Y9 the weighted sum
// of the K.
TEXT ·lvTangentAVX(SB), NOSPLIT, $0-88
	MOVQ tx+0(FP), DI
	MOVQ ty+8(FP), SI
	MOVQ da+16(FP), R8
	MOVQ db+24(FP), R9
	MOVQ de+32(FP), R10
	MOVQ dg+40(FP), R11
	MOVQ e0+48(FP), R12
	MOVQ e1+56(FP), R13
	MOVQ e2+64(FP), BX
	MOVQ n+72(FP), CX
	MOVQ c+80(FP), DX
	SHRQ $2, CX
	JZ done
	XORQ AX, AX
loop:
	VMOVUPD (DI)(AX*1), Y0
	VMOVUPD (SI)(AX*1), Y1
	STAGE(Y0, Y1, 0(DX), 32(DX), 64(DX), 96(DX), 128(DX), 160(DX), R12)
	VMOVAPD Y2, Y8
	VMOVAPD Y3, Y9
	VMULPD 768(DX), Y2, Y4
	VADDPD Y4, Y0, Y10
	VMULPD 768(DX), Y3, Y4
	VADDPD Y4, Y1, Y11
	STAGE(Y10, Y11, 192(DX), 224(DX), 256(DX), 288(DX), 320(DX), 352(DX), R13)
	VMULPD 864(DX), Y2, Y4
	VADDPD Y4, Y8, Y8
	VMULPD 864(DX), Y3, Y4
	VADDPD Y4, Y9, Y9
	VMULPD 768(DX), Y2, Y4
	VADDPD Y4, Y0, Y10
	VMULPD 768(DX), Y3, Y4
	VADDPD Y4, Y1, Y11
	STAGE(Y10, Y11, 384(DX), 416(DX), 448(DX), 480(DX), 512(DX), 544(DX), R13)
	VMULPD 864(DX), Y2, Y4
	VADDPD Y4, Y8, Y8
	VMULPD 864(DX), Y3, Y4
	VADDPD Y4, Y9, Y9
	VMULPD 800(DX), Y2, Y4
	VADDPD Y4, Y0, Y10
	VMULPD 800(DX), Y3, Y4
	VADDPD Y4, Y1, Y11
	STAGE(Y10, Y11, 576(DX), 608(DX), 640(DX), 672(DX), 704(DX), 736(DX), BX)
	VADDPD Y2, Y8, Y8
	VADDPD Y3, Y9, Y9
	VMULPD 832(DX), Y8, Y4
	VADDPD Y4, Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	VMULPD 832(DX), Y9, Y4
	VADDPD Y4, Y1, Y1
	VMOVUPD Y1, (SI)(AX*1)
	ADDQ $32, AX
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET
