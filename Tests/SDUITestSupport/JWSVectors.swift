// JWSVectors.swift - published JWS vectors and a base64url helper, for the verifier's and the signer's tests.
import Foundation

/// Published vectors, copied byte for byte from the RFCs named.
public enum JWSVectors {
    /// RFC 7515 Appendix A.1: HS256, the JWK of A.1.1 and the compact
    /// serialization of A.1.1 (header `{"typ":"JWT",\r\n "alg":"HS256"}`).
    public static let rfc7515JWK = #"{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}"#
    public static let rfc7515Compact = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9"
        + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    public static let rfc7515Payload = "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}"

    /// RFC 7520 §4.4 (HMAC-SHA2 integrity protection): the key of §3.5
    /// (Figure 13), the payload of §4 (Figure 7) and the compact
    /// serialization of Figure 34.
    public static let rfc7520JWK = #"{"kty":"oct","kid":"018c0ae5-4d9b-471b-bfd6-eef314bc7037","use":"sig","alg":"HS256","k":"hJtXIZ2uSN5kbQfbtTNWbpdmhkV8FJG-Onbc6mxCcYg"}"#
    public static let rfc7520Kid = "018c0ae5-4d9b-471b-bfd6-eef314bc7037"
    public static let rfc7520Payload = "It\u{2019}s a dangerous business, Frodo, going out your door. You step onto the road, "
        + "and if you don't keep your feet, there\u{2019}s no knowing where you might be swept off to."
    public static let rfc7520Compact = "eyJhbGciOiJIUzI1NiIsImtpZCI6IjAxOGMwYWU1LTRkOWItNDcxYi1iZmQ2LWVlZjMxNGJjNzAzNyJ9"
        + ".SXTigJlzIGEgZGFuZ2Vyb3VzIGJ1c2luZXNzLCBGcm9kbywgZ29pbmcgb3V0IHlvdXIgZG9vci4gWW91IHN0ZXAgb250byB0aGUgcm9h"
        + "ZCwgYW5kIGlmIHlvdSBkb24ndCBrZWVwIHlvdXIgZmVldCwgdGhlcmXigJlzIG5vIGtub3dpbmcgd2hlcmUgeW91IG1pZ2h0IGJlIHN3ZXB0IG9mZiB0by4"
        + ".s0h6KThzkfBBBkLspW1h84VsJZFTsPPqMDA7g1Md7p0"

    /// RFC 8037 Appendix A.1 (the Ed25519 key pair), A.4 (the JWS) and A.5
    /// (its validation).
    public static let rfc8037PrivateJWK = #"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    public static let rfc8037D = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
    public static let rfc8037X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    public static let rfc8037Payload = "Example of Ed25519 signing"
    public static let rfc8037Compact = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
        + ".hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
}

/// base64url helpers for building test inputs (the code under test has its own).
public enum B64URL {
    public static func encode(_ d: Data) -> String {
        d.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ s: some StringProtocol) -> Data {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        t += String(repeating: "=", count: (4 - t.count % 4) % 4)
        return Data(base64Encoded: t)!
    }
}
