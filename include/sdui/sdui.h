/*
 * sdui.h - umbrella header of the SDUIKit C core.
 */
#ifndef SDUI_SDUI_H
#define SDUI_SDUI_H

#define SDUI_VERSION_MAJOR 0
#define SDUI_VERSION_MINOR 1
#define SDUI_VERSION_PATCH 0
#define SDUI_VERSION_STRING "0.1.0"

#include "error.h"
#include "alloc.h"
#include "limits.h"
#include "json.h"
#include "gzip.h"
#include "token.h"
#include "pack.h"
#include "cache.h"
#include "disk.h"

#endif
