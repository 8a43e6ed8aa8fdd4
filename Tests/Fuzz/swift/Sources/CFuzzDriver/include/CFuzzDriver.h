// CFuzzDriver.h - libFuzzer's driver entry point, declared for Swift.
//
// SwiftPM links an executable's `main` to its main.swift, so the harness
// cannot take libFuzzer's own `main`; its main.swift hands control to the
// driver instead.  LLVMFuzzerRunDriver is part of libFuzzer (linked by
// -sanitize=fuzzer); it parses the fuzzer's flags from argc/argv and calls
// `callback` once per input.  It returns when the run ends.
#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
