// Vora Board: a switching diode (1N4148) for the Wokwi simulator.
//
// Wokwi has no built-in diode part (feature request wokwi/wokwi-features#349),
// so the key matrix in ../diagram.json uses this custom chip, part type
// "chip-diode", pins "A" (anode) and "C" (cathode).
//
// Wokwi simulates digital nets, not currents, so the chip models the one thing
// a diode does in a col2row key matrix scanned with pull-ups:
//   * cathode LOW  -> the anode is pulled LOW (the diode conducts towards the
//                     row that the firmware drives low);
//   * cathode HIGH or floating -> the anode is released (high impedance), so a
//                     pressed key on an idle row cannot pull its column low.
// The cathode input has a pull-up so that a row pin left floating (input mode)
// reads as idle, just as a real reverse-biased diode would leave it.
// The forward direction from a HIGH anode to the cathode is not modelled: no
// scan of this board depends on it.
//
// Build for Wokwi for VS Code (wokwi.com compiles *.chip.c by itself):
//   see the Makefile next to this file.

#include "wokwi-api.h"
#include <stdlib.h>

typedef struct {
  pin_t anode;
  pin_t cathode;
} diode_t;

static void follow_cathode(diode_t *d, uint32_t cathode_level) {
  if (cathode_level == LOW) {
    pin_mode(d->anode, OUTPUT_LOW);
  } else {
    pin_mode(d->anode, INPUT);
  }
}

static void on_cathode_change(void *user_data, pin_t pin, uint32_t value) {
  (void)pin;
  follow_cathode((diode_t *)user_data, value);
}

void chip_init(void) {
  diode_t *d = malloc(sizeof(diode_t));
  d->anode = pin_init("A", INPUT);
  d->cathode = pin_init("C", INPUT_PULLUP);

  const pin_watch_config_t watch = {
    .user_data = d,
    .edge = BOTH,
    .pin_change = on_cathode_change,
  };
  pin_watch(d->cathode, &watch);
  follow_cathode(d, pin_read(d->cathode));
}
