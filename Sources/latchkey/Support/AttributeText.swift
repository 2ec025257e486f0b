import Foundation
import Latchkey

/// Renders attribute values the way `security`'s attribute dump does.
enum AttributeText {
    static func render(_ value: AttributeValue) -> String {
        switch value {
        case .string(let text): "<blob>=\"\(text)\""
        case .data(let data): "<blob>=0x\(data.map { String(format: "%02X", $0) }.joined())"
        case .number(let number): "<uint32>=\(number)"
        case .double(let number): "<real>=\(number)"
        case .date(let date): "<timedate>=\"\(ItemOutput.isoDate(date))\""
        }
    }
}
