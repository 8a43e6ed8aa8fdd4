// CFuzzDriver.c - nothing to compile: the module only declares
// LLVMFuzzerRunDriver (include/CFuzzDriver.h), which libFuzzer defines.
#include "CFuzzDriver.h"
