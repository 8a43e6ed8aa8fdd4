// PatientClient.swift - the HTTP client tests use against their loopback servers.
import SDUICore

/// A client that waits 30 s for an answer the test expects.  The loopback
/// servers answer at once, but a loaded 2-core machine running the whole
/// suite in parallel has taken longer than the library's 10 s default; the
/// client then gave up, the retry sent the request again, and a test that
/// counts requests or expects success failed.
public let patientClient = HTTPClient(timeout: 30, maxBodyBytes: 8 << 20)
