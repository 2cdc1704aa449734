import HTTPCore
import PermissionDomain

/// A form POSTed by a consent page (HTML Living Standard §4.10.21.7
/// `application/x-www-form-urlencoded`), parsed within limits and checked against the
/// session's CSRF token before anything else looks at it. Every page that changes something
/// reads its form through ``checked(_:visit:limits:)``.
struct ConsentForm: Sendable {
    /// The hidden field holding the CSRF token.
    static let csrfField = "csrf"

    /// What a form may be.
    struct Limits: Sendable {
        /// Largest body, in bytes.
        var maxBytes = 16_384
        /// Most fields.
        var maxFields = 64
    }

    /// The fields in order, percent-decoded with "+" as space.
    let fields: [(name: String, value: String)]

    /// The first value of `name`, or nil.
    func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Parses the body of `request`.
    /// - Throws: ``ConsentPageError/badForm(status:why:)``: 415 for another media type, 413 over
    ///   `limits.maxBytes`, 400 for too many fields or a bad encoding.
    static func parse(_ request: HTTPRequest, limits: Limits) throws -> ConsentForm {
        let mediaType = request.headers["Content-Type"]?.split(separator: ";", maxSplits: 1).first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw ConsentPageError.badForm(status: .unsupportedMediaType, why: .badFormMediaType)
        }
        guard request.body.count <= limits.maxBytes else {
            throw ConsentPageError.badForm(status: .contentTooLarge, why: .badFormTooLarge)
        }
        guard let text = String(validating: request.body, as: UTF8.self), let fields = parseQuery(text) else {
            throw ConsentPageError.badForm(status: .badRequest, why: .badFormEncoding)
        }
        guard fields.count <= limits.maxFields else {
            throw ConsentPageError.badForm(status: .badRequest, why: .badFormTooManyFields)
        }
        return ConsentForm(fields: fields)
    }

    /// The form of `request`, once its CSRF token is the session's (compared in constant time,
    /// `ConstantTime.equal`, through its SHA-256 against the stored hash).
    /// - Throws: ``ConsentPageError/csrf`` when the field is missing or wrong; what
    ///   ``parse(_:limits:)`` throws.
    static func checked(_ request: HTTPRequest, visit: ConsentVisit, limits: Limits = Limits()) throws -> ConsentForm {
        let form = try parse(request, limits: limits)
        let presented = form.fields.filter { $0.name == csrfField }
        guard presented.count == 1, let token = presented.first?.value, ConsentSecret.isWellFormed(Substring(token)),
            let expected = visit.session.csrfHash, ConstantTime.equal(ConsentSecret.hash(token), expected)
        else { throw ConsentPageError.csrf }
        return form
    }
}
