/*
 * number.h - the one rule by which SDUIKit writes a decimal number as text.
 *
 * Every layer that shows a double uses it: the expression language
 * (string(), JSON results), the Swift JSONValue's text (bindings, themes,
 * the HTML preview) and so every platform that links the core.  The rule:
 * the fewest significant digits that read back to exactly the same double;
 * positional notation when the decimal exponent is in [-6, 21) (0.1, 2.5,
 * 123.0, 0.000001), otherwise d.ddde[-]X with no '+' and no leading zero in
 * the exponent (1e21, 1.5e-7); the text always holds a '.' or an 'e', so it
 * reads back as a decimal, never an integer (2.0, not 2).  Non-finite
 * values are written nan, inf and -inf (JSON has none of them).  Among
 * the texts with the fewest digits, the one closest to the double (a tie
 * to an even last digit): the digits are those of any correct shortest
 * method (Schubfach, Ryu, double-conversion's).  The C locale is never
 * read: the point is always '.', whatever setlocale or uselocale set.
 */
#ifndef SDUI_NUMBER_H
#define SDUI_NUMBER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest text sdui_number_text writes, with its NUL. */
#define SDUI_NUMBER_TEXT_MAX 32

/*
 * Writes d by the rule above into buf (at least SDUI_NUMBER_TEXT_MAX bytes)
 * with a NUL, and returns its length.  buf is the caller's; nothing is
 * allocated.  Thread-safe.  buf must not be NULL (asserted).
 */
size_t sdui_number_text(double d, char *buf);

#ifdef __cplusplus
}
#endif

#endif
