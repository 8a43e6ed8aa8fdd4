// StringArgument.swift - a value put into a catalog text's {argument}.

/// The value of a `{name}` argument: a number (written in the locale's
/// format, and the one a plural entry's `count` chooses its form by) or a
/// text (put in as it is).
public enum StringArgument: Sendable, Hashable {
    case number(Double)
    case text(String)
}
