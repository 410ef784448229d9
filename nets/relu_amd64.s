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
