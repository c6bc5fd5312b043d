/// An immutable value kept out of line: a large, rarely set field of a
/// struct that is held once per subscription (10,000 of them) in arrays that
/// get copied, which would otherwise make every element of those arrays as
/// large as the field. A new value is a new box.
public final class Boxed<Value: Sendable>: Sendable {
    public let value: Value

    public init(_ value: Value) { self.value = value }
}
