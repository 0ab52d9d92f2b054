/* SPDX-License-Identifier: MIT */
/*
 * The local APIC (lapic.c): register access in xAPIC (MMIO) or x2APIC
 * (MSR) mode, IPIs, the EOI and the one-shot timer that ends an idle
 * halt. Only arch/x86_64 includes this header.
 */
#ifndef ASM_LAPIC_H
#define ASM_LAPIC_H

#include <keel/types.h>

#define APIC_ID		0x020
#define APIC_EOI	0x0b0
#define APIC_SVR	0x0f0
#define APIC_ISR	0x100 /* 8 registers, 0x10 apart */
#define APIC_IRR	0x200 /* likewise */
#define APIC_ICR_LO	0x300
#define APIC_ICR_HI	0x310
#define APIC_LVT_TIMER	0x320
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR	0x390
#define APIC_TIMER_DIV	0x3e0

/* ICR low word: delivery mode and level bits. */
#define ICR_FIXED   0x00000000
#define ICR_INIT    0x00000500
#define ICR_STARTUP 0x00000600
#define ICR_BUSY    0x00001000
#define ICR_ASSERT  0x00004000
#define ICR_LEVEL   0x00008000

/* Bring up the boot CPU's local APIC. Return: 0 or -ENODEV. */
int lapic_init(void);
/* Software-enable the running CPU's local APIC (x2APIC mode when used). */
void lapic_enable_local(void);
/* Arm the one-shot wake timer of a secondary (x86_ap_entry). */
void lapic_timer_setup_ap(void);
/* Start the one-shot timer for @us. Return: false without a timer. */
bool lapic_timer_oneshot(uint32_t us);

/*
 * The latency probe's absolute deadlines on the same timer (irq.c):
 * "tsc-deadline" or "apic-oneshot" (NULL: no usable timer); set the
 * running CPU up, arm it for a TSC value, stop it (idle one-shot back).
 */
const char *lapic_timer_mode(void);
bool lapic_timer_calibrated(void);
void lapic_timer_probe_init(void);
void lapic_timer_arm_tsc(uint64_t deadline);
void lapic_timer_stop(void);

uint32_t lapic_read(uint32_t reg);
void lapic_write(uint32_t reg, uint32_t v);
/* Send one IPI (@icr low word) to APIC ID @dest. Return: 0 or -EIO. */
int lapic_send_ipi(uint32_t dest, uint32_t icr);

/* Is @vec in service / requested at the running CPU's local APIC? */
bool lapic_in_service(uint8_t vec);
bool lapic_requested(uint8_t vec);

/* x2APIC in use (else xAPIC MMIO at lapic_mmio()). */
bool lapic_x2apic(void);
/* The xAPIC page (uncached, identity mapped); NULL in x2APIC mode. */
volatile uint32_t *lapic_mmio(void);

#endif
