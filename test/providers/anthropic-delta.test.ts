import { describe, expect, it } from "vitest";
import { parseStringDelta } from "../../src/providers/anthropic-delta";

const DELTAS = [
    ["text_delta", "text"],
    ["thinking_delta", "thinking"],
    ["input_json_delta", "partial_json"],
    ["signature_delta", "signature"],
] as const;

const VALUES = [
    "",
    "tok1 ",
    "Hello, world",
    'say "hi"',
    "back\\slash\\",
    "line\nbreak\ttab\r",
    "\u0000\u001f control",
    "ünïcödé — 日本語 🚀",
    "\ud800 lone surrogate",
    '{"partial": [1, 2',
    "</NORTH_FILE>",
    "}}",
    '"}}',
];

describe("the compact content_block_delta fast path", () => {
    it("gives exactly what JSON.parse gives for every string delta the API sends", () => {
        for (const [type, field] of DELTAS) {
            for (const index of [0, 1, 7, 10, 123]) {
                for (const value of VALUES) {
                    const data = JSON.stringify({
                        type: "content_block_delta",
                        index,
                        delta: { type, [field]: value },
                    });
                    expect(parseStringDelta(data), data).toEqual(JSON.parse(data));
                }
            }
        }
    });

    it("leaves every other form to the full parser", () => {
        const others = [
            // Other events and shapes.
            '{"type":"message_stop"}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":1}',
            '{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}',
            '{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"a"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} ',
            // Values JSON would read differently or reject.
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"b"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\x41"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"raw\ncontrol"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}',
            // Indexes that are not plain JSON integers.
            '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}',
            '{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"a"}}',
            '{"type":"content_block_delta","index":1.5,"delta":{"type":"text_delta","text":"a"}}',
            '{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"a"}}',
            '{"type":"content_block_delta","index":123456789012,"delta":{"type":"text_delta","text":"a"}}',
            '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"}}',
        ];
        for (const data of others) expect(parseStringDelta(data), data).toBeUndefined();
    });

    it("leaves long deltas to the full parser without throwing", () => {
        for (const length of [20_000, 10_000_000]) {
            const data = JSON.stringify({
                type: "content_block_delta",
                index: 0,
                delta: { type: "text_delta", text: 'a"\n'.repeat(length / 4) },
            });
            expect(parseStringDelta(data)).toBeUndefined();
        }
    });
});
