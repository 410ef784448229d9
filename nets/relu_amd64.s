// Vector forms of the inference elementwise passes in relu.go (AVX2),
// declared in relu_amd64.go. Each handles n/4·4 values; the Go wrappers
// do the rest. ReLU is reluBits: a value whose sign bit is set becomes
// +0 (VBLENDVPD picks the zero by that bit), every other value is kept.

#include "textflag.h"

// func reluAVX(d *float64, n int)
TEXT ·reluAVX(SB), NOSPLIT, $0-16
	MOVQ d+0(FP), DI
	MOVQ n+8(FP), CX
	SHRQ $2, CX
	JZ reludone
	VXORPD Y15, Y15, Y15
reluloop:
	VMOVUPD (DI), Y0
	VBLENDVPD Y0, Y15, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ reluloop
reludone:
	VZEROUPPER
	RET

// func addReLUAVX(d, b *float64, n int)
//
// d[i] = relu(d[i] + b[i]).
TEXT ·addReLUAVX(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ addreludone
	VXORPD Y15, Y15, Y15
addreluloop:
	VMOVUPD (DI), Y0
	VADDPD (SI), Y0, Y0
	VBLENDVPD Y0, Y15, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ addreluloop
addreludone:
	VZEROUPPER
	RET

// func addAVX(d, x, y *float64, n int)
//
// d[i] = x[i] + y[i].
TEXT ·addAVX(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JZ adddone
addloop:
	VMOVUPD (SI), Y0
	VADDPD (DX), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ addloop
adddone:
	VZEROUPPER
	RET

// func reluFwdAVX(y, x *float64, n int)
//
// y[i] = x[i] unless x[i] ≤ 0 (ordered: NaN passes), else +0: Tape.ReLU's
// forward.
TEXT ·reluFwdAVX(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ fwddone
	VXORPD Y15, Y15, Y15
fwdloop:
	VMOVUPD (SI), Y0
	VCMPPD $2, Y15, Y0, Y1
	VANDNPD Y0, Y1, Y2
	VMOVUPD Y2, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ fwdloop
fwddone:
	VZEROUPPER
	RET

// func reluBwdAVX(gx, gy, y *float64, n int)
//
// gx[i] += gy[i] where y[i]'s bits, as a signed integer, are positive (y
// > 0 or a positive NaN), else += +0: Tape.ReLU's backward.
TEXT ·reluBwdAVX(SB), NOSPLIT, $0-32
	MOVQ gx+0(FP), DI
	MOVQ gy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JZ bwddone
	VPXOR Y15, Y15, Y15
bwdloop:
	VMOVUPD (DX), Y0
	VPCMPGTQ Y15, Y0, Y1
	VANDPD (SI), Y1, Y2
	VADDPD (DI), Y2, Y2
	VMOVUPD Y2, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ bwdloop
bwddone:
	VZEROUPPER
	RET

// func reluBwdSetAVX(gx, gy, y *float64, n int)
//
// gx[i] = gy[i] where y[i]'s bits, as a signed integer, are positive,
// else +0: reluBwdAVX into storage not yet holding a gradient.
TEXT ·reluBwdSetAVX(SB), NOSPLIT, $0-32
	MOVQ gx+0(FP), DI
	MOVQ gy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JZ bwdsetdone
	VPXOR Y15, Y15, Y15
bwdsetloop:
	VMOVUPD (DX), Y0
	VPCMPGTQ Y15, Y0, Y1
	VANDPD (SI), Y1, Y2
	VMOVUPD Y2, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ bwdsetloop
bwdsetdone:
	VZEROUPPER
	RET

// func siluBwdAVX(gx, gy, x, s *float64, n int)
//
// gx[i] += (gy[i]·s[i])·(1 + x[i]·(1 − s[i])), each operation rounded as
// Go rounds Tape.SiLU's backward (no fused multiply-add).
TEXT ·siluBwdAVX(SB), NOSPLIT, $0-40
	MOVQ gx+0(FP), DI
	MOVQ gy+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ s+24(FP), R8
	MOVQ n+32(FP), CX
	SHRQ $2, CX
	JZ silubwddone
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X14
	VBROADCASTSD X14, Y14
silubwdloop:
	VMOVUPD (R8), Y0
	VSUBPD Y0, Y14, Y1
	VMULPD (DX), Y1, Y1
	VADDPD Y1, Y14, Y1
	VMULPD (SI), Y0, Y2
	VMULPD Y1, Y2, Y2
	VADDPD (DI), Y2, Y2
	VMOVUPD Y2, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNZ silubwdloop
silubwddone:
	VZEROUPPER
	RET

// func siluBwdSetAVX(gx, gy, x, s *float64, n int)
//
// gx[i] = (gy[i]·s[i])·(1 + x[i]·(1 − s[i])): siluBwdAVX into storage
// not yet holding a gradient.
TEXT ·siluBwdSetAVX(SB), NOSPLIT, $0-40
	MOVQ gx+0(FP), DI
	MOVQ gy+8(FP), SI
	MOVQ x+16(FP), DX
	MOVQ s+24(FP), R8
	MOVQ n+32(FP), CX
	SHRQ $2, CX
	JZ silubwdsetdone
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X14
	VBROADCASTSD X14, Y14
silubwdsetloop:
	VMOVUPD (R8), Y0
	VSUBPD Y0, Y14, Y1
	VMULPD (DX), Y1, Y1
	VADDPD Y1, Y14, Y1
	VMULPD (SI), Y0, Y2
	VMULPD Y1, Y2, Y2
	VMOVUPD Y2, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNZ silubwdsetloop
silubwdsetdone:
	VZEROUPPER
	RET

// func mulAVX(d, x, y *float64, n int)
//
// d[i] = x[i]·y[i].
TEXT ·mulAVX(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JZ muldone
mulloop:
	VMOVUPD (SI), Y0
	VMULPD (DX), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNZ mulloop
muldone:
	VZEROUPPER
	RET

// func reluDerivAVX(x, d *float64, n int)
//
// x[i] = reluBits(x[i]) (+0 where the sign bit is set) and d[i] = 1
// where x[i] > 0 (ordered), else 0: activateDeriv for ReLU.
TEXT ·reluDerivAVX(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ derivdone
	VXORPD Y15, Y15, Y15
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X14
	VBROADCASTSD X14, Y14
derivloop:
	VMOVUPD (DI), Y0
	VCMPPD $0x1e, Y15, Y0, Y1
	VANDPD Y14, Y1, Y2
	VBLENDVPD Y0, Y15, Y0, Y0
	VMOVUPD Y0, (DI)
	VMOVUPD Y2, (SI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ derivloop
derivdone:
	VZEROUPPER
	RET

// func siluDerivAVX(x, d *float64, n int)
//
// With d[i] = σ(x[i]) on entry: x[i] = x[i]·σ and d[i] = σ·(1 + x[i]·(1 −
// σ)), each operation rounded as activateDeriv's scalar loop rounds it.
TEXT ·siluDerivAVX(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ d+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $2, CX
	JZ siluderivdone
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X14
	VBROADCASTSD X14, Y14
siluderivloop:
	VMOVUPD (DI), Y0
	VMOVUPD (SI), Y1
	VSUBPD Y1, Y14, Y2
	VMULPD Y0, Y2, Y2
	VADDPD Y2, Y14, Y2
	VMULPD Y1, Y2, Y2
	VMULPD Y1, Y0, Y0
	VMOVUPD Y0, (DI)
	VMOVUPD Y2, (SI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ siluderivloop
siluderivdone:
	VZEROUPPER
	RET
