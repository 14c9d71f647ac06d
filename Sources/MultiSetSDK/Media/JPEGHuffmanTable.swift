/// A Huffman table built for the symbols one image actually uses (ITU-T T.81 Annex K.2): code lengths
/// from symbol frequencies, limited to 16 bits, then canonical codes (Annex C).
struct JPEGHuffmanTable {
    /// `counts[i]`: number of codes of length i + 1 (the DHT marker's 16 counts).
    var counts: [UInt8]
    /// Symbols in order of increasing code length (the DHT marker's values).
    var symbols: [UInt8]
    /// Code of each symbol (valid where `lengths[s] > 0`).
    var codes: [UInt16]
    /// Code length of each symbol in bits (0: unused).
    var lengths: [UInt8]

    /// Builds the table for symbol frequencies `frequencies` (256 entries; at least one non-zero).
    ///
    /// A reserved pseudo-symbol of frequency 1 takes the all-ones code, which T.81 forbids for real
    /// symbols; it is dropped from the result.
    init(frequencies: [Int]) {
        precondition(frequencies.count == 256)
        var input = frequencies
        var codeSize = Self.codeSizes(input + [1])
        // Depths beyond 32 need Fibonacci-like counts of billions; halving the counts keeps every used
        // symbol and bounds the depth.
        while codeSize.contains(where: { $0 > 32 }) {
            input = input.map { $0 > 0 ? ($0 + 1) / 2 : 0 }
            codeSize = Self.codeSizes(input + [1])
        }
        (counts, symbols, codes, lengths) = Self.limitedCode(codeSize)
    }

    /// Figure K.1: code sizes of an optimal Huffman code for `frequencies` (unused symbols get 0).
    private static func codeSizes(_ frequencies: [Int]) -> [Int] {
        var freq = frequencies
        var codeSize = [Int](repeating: 0, count: 257)
        var others = [Int](repeating: -1, count: 257)
        // Figure K.1: repeatedly merge the two least frequent trees (ties: the higher symbol value).
        while true {
            var v1 = -1, v2 = -1
            for i in 0..<257 where freq[i] > 0 {
                if v1 < 0 || freq[i] <= freq[v1] { v1 = i }
            }
            for i in 0..<257 where freq[i] > 0 && i != v1 {
                if v2 < 0 || freq[i] <= freq[v2] { v2 = i }
            }
            if v2 < 0 { break }
            freq[v1] += freq[v2]
            freq[v2] = 0
            codeSize[v1] += 1
            var k = v1
            while others[k] >= 0 {
                k = others[k]
                codeSize[k] += 1
            }
            others[k] = v2
            codeSize[v2] += 1
            k = v2
            while others[k] >= 0 {
                k = others[k]
                codeSize[k] += 1
            }
        }
        return codeSize
    }

    /// Figures K.2–K.4 and Annex C: lengths limited to 16 bits, the DHT counts and symbol order, and
    /// the canonical code of every symbol.
    private static func limitedCode(
        _ codeSize: [Int]
    ) -> (counts: [UInt8], symbols: [UInt8], codes: [UInt16], lengths: [UInt8]) {
        // Figure K.2: count codes per length (lengths up to 32 can occur before limiting).
        var bits = [Int](repeating: 0, count: 33)
        for size in codeSize where size > 0 { bits[size] += 1 }
        // Figure K.3: move codes longer than 16 bits up the tree.
        var i = 32
        while i > 16 {
            while bits[i] > 0 {
                var j = i - 2
                while bits[j] == 0 { j -= 1 }
                bits[i] -= 2
                bits[i - 1] += 1
                bits[j + 1] += 2
                bits[j] -= 1
            }
            i -= 1
        }
        // Drop the reserved symbol's code (the longest).
        var longest = 16
        while bits[longest] == 0 { longest -= 1 }
        bits[longest] -= 1
        // Figure K.4: symbols sorted by code size, then by value.
        var ordered: [UInt8] = []
        for size in 1...32 {
            for s in 0..<256 where codeSize[s] == size { ordered.append(UInt8(s)) }
        }
        // Annex C: canonical codes for the (possibly shortened) lengths.
        var codes = [UInt16](repeating: 0, count: 256)
        var lengths = [UInt8](repeating: 0, count: 256)
        var code = 0
        var index = 0
        for length in 1...16 {
            for _ in 0..<bits[length] {
                let s = Int(ordered[index])
                codes[s] = UInt16(code)
                lengths[s] = UInt8(length)
                code += 1
                index += 1
            }
            code <<= 1
        }
        return ((1...16).map { UInt8(bits[$0]) }, ordered, codes, lengths)
    }
}
