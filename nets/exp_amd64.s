// The vector exponential of exp.go, declared in exp_amd64.go.

#include "textflag.h"

// func expAVX2(dst, src *float64, n int, consts *float64, sigmoid bool)
//
// Four values at a time: x clamped to [−745.2, 709.8]; n = round(x log2 e);
// r = x − n ln2hi − n ln2lo; p = Σ_{k ≤ 13} r^k/k! by Horner with FMA;
// e^x = p · 2^⌊n/2⌋ · 2^(n−⌊n/2⌋), each power built in the exponent bits;
// then +Inf above 709.78, 0 below −745.13, and NaN lanes keep x. consts
// holds 32-byte rows (exp_amd64.go's expConsts). With sigmoid set, x is
// negated on loading and 1/(1 + e^x) stored.
TEXT ·expAVX2(SB), NOSPLIT, $0-33
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ consts+24(FP), R8
	MOVBQZX sigmoid+32(FP), R9
	VXORPD Y15, Y15, Y15
	SHRQ $2, CX
	JZ done
loop:
	VMOVUPD (SI), Y0
	TESTQ R9, R9
	JZ reduce
	VSUBPD Y0, Y15, Y0
reduce:
	VMAXPD 0(R8), Y0, Y1
	VMINPD 32(R8), Y1, Y1
	VMULPD 64(R8), Y1, Y2
	VROUNDPD $0, Y2, Y2
	VMOVAPD Y1, Y3
	VFNMADD231PD 96(R8), Y2, Y3
	VFNMADD231PD 128(R8), Y2, Y3
	VMOVUPD 352(R8), Y4
	VFMADD213PD 384(R8), Y3, Y4
	VFMADD213PD 416(R8), Y3, Y4
	VFMADD213PD 448(R8), Y3, Y4
	VFMADD213PD 480(R8), Y3, Y4
	VFMADD213PD 512(R8), Y3, Y4
	VFMADD213PD 544(R8), Y3, Y4
	VFMADD213PD 576(R8), Y3, Y4
	VFMADD213PD 608(R8), Y3, Y4
	VFMADD213PD 640(R8), Y3, Y4
	VFMADD213PD 672(R8), Y3, Y4
	VFMADD213PD 704(R8), Y3, Y4
	VFMADD213PD 736(R8), Y3, Y4
	VFMADD213PD 768(R8), Y3, Y4
	VMULPD 160(R8), Y2, Y5
	VROUNDPD $1, Y5, Y5
	VSUBPD Y5, Y2, Y6
	VCVTPD2DQY Y5, X5
	VPMOVSXDQ X5, Y5
	VPADDQ 192(R8), Y5, Y5
	VPSLLQ $52, Y5, Y5
	VCVTPD2DQY Y6, X6
	VPMOVSXDQ X6, Y6
	VPADDQ 192(R8), Y6, Y6
	VPSLLQ $52, Y6, Y6
	VMULPD Y5, Y4, Y4
	VMULPD Y6, Y4, Y4
	VCMPPD $0x1e, 224(R8), Y0, Y7
	VBLENDVPD Y7, 256(R8), Y4, Y4
	VCMPPD $0x11, 288(R8), Y0, Y7
	VBLENDVPD Y7, 320(R8), Y4, Y4
	VCMPPD $3, Y0, Y0, Y7
	VBLENDVPD Y7, Y0, Y4, Y4
	TESTQ R9, R9
	JZ store
	VADDPD 800(R8), Y4, Y4
	VMOVUPD 800(R8), Y5
	VDIVPD Y4, Y5, Y4
store:
	VMOVUPD Y4, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET
