import { describe, expect, it } from "vitest";
import { GeminiTextChunkReader } from "../../src/providers/gemini-text-chunk";
import { SseParser } from "../../src/providers/sse";

// One reader for the whole file: its repeated-tail copy is exercised throughout.
const reader = new GeminiTextChunkReader();
const parseGeminiTextChunk = (data: string) => reader.read(data);

const TEXTS = [
    "",
    "tok1 ",
    "Hello, world",
    'say "hi"',
    "back\\slash\\",
    "line\nbreak\ttab\r",
    "\u0000\u001f control",
    "ünïcödé — 日本語 🚀",
    "\ud800 lone surrogate",
    '{"parts": [1, 2',
    "</NORTH_FILE>",
    "}]}",
    '"}],"role":"model"}',
];

/** Deterministic pseudo-random numbers, so a failure names a reproducible input. */
function random(seed: number): () => number {
    let state = seed;
    return () => {
        state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
        return state / 2_147_483_648;
    };
}

/** JSON text of `value` with random JSON whitespace after every `:` and `,` and around brackets. */
function spaced(value: unknown, next: () => number): string {
    const json = JSON.stringify(value);
    const pad = (): string => ["", " ", "\n", "\t", "\r\n ", "  "][Math.floor(next() * 6)]!;
    let out = "";
    let inString = false;
    for (let i = 0; i < json.length; i++) {
        const ch = json[i]!;
        out += ch;
        if (inString) {
            if (ch === "\\") out += json[++i]!;
            else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (":,[]{}".includes(ch) && next() < 0.5) out += pad();
    }
    return next() < 0.2 ? ` ${out}` : out;
}

/** A chunk as Gemini sends it, with the variations the fast path must read. */
function chunkOf(text: string, next: () => number): Record<string, unknown> {
    const content =
        next() < 0.5 ? { parts: [{ text }], role: "model" } : { role: "model", parts: [{ text }] };
    const candidate = next() < 0.7 ? { content, index: 0 } : { content };
    const chunk: Record<string, unknown> = { candidates: [candidate] };
    if (next() < 0.6)
        chunk.usageMetadata =
            next() < 0.5
                ? { promptTokenCount: 12, totalTokenCount: 12 }
                : {
                      promptTokenCount: 7,
                      candidatesTokenCount: 3,
                      totalTokenCount: 10,
                      promptTokensDetails: [{ modality: "TEXT", tokenCount: 7 }],
                  };
    if (next() < 0.8) chunk.modelVersion = "gemini-3.8-flash";
    if (next() < 0.8) chunk.responseId = `resp-${Math.floor(next() * 1e6)}`;
    return chunk;
}

/** What the provider does: the fast path, else the whole parse (or its error). */
function both(data: string): { fast: unknown; slow: unknown } {
    let slow: unknown;
    try {
        slow = JSON.parse(data);
    } catch (error) {
        slow = error instanceof Error ? error.name : "threw";
    }
    let fast: unknown;
    try {
        fast = parseGeminiTextChunk(data) ?? JSON.parse(data);
    } catch (error) {
        fast = error instanceof Error ? error.name : "threw";
    }
    return { fast, slow };
}

describe("the Gemini text chunk fast path", () => {
    it("gives exactly what JSON.parse gives for text chunks in every layout", () => {
        const next = random(37);
        let taken = 0;
        for (let round = 0; round < 400; round++) {
            for (const text of TEXTS) {
                const data = spaced(chunkOf(text, next), next);
                const fast = parseGeminiTextChunk(data);
                expect(fast, data).toEqual(JSON.parse(data));
                if (fast !== undefined) taken++;
            }
        }
        // Every one of these is the common form: none may fall back.
        expect(taken).toBe(400 * TEXTS.length);
    });

    it("reads the compact form and Google's spaced form", () => {
        const compact =
            '{"candidates":[{"content":{"role":"model","parts":[{"text":"tok1 "}]},"index":0}],"modelVersion":"gemini-3.8-flash","responseId":"r1"}';
        const google =
            '{"candidates": [{"content": {"parts": [{"text": "tok1 "}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 5,"totalTokenCount": 5},"modelVersion": "gemini-3.8-flash","responseId": "r1"}';
        for (const data of [compact, google]) {
            expect(parseGeminiTextChunk(data), data).toEqual(JSON.parse(data));
            expect(parseGeminiTextChunk(data), data).toBeDefined();
        }
    });

    it("leaves every other chunk to the full parser", () => {
        const others = [
            // Other parts and fields.
            '{"candidates":[{"content":{"parts":[{"text":"a","thought":true}],"role":"model"},"index":0}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a","thoughtSignature":"c2ln"}],"role":"model"},"index":0}]}',
            '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"Read","args":{}}}],"role":"model"},"index":0}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}],"role":"model"},"index":0}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"finishReason":"STOP","index":0}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":1}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"user"},"index":0}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":0}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0},{"content":{}}]}',
            '{"usageMetadata":{"promptTokenCount":1},"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}]}',
            // A later member JSON.parse would let win, or would read as an own key.
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"candidates":[]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"__proto__":{"x":1}}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"\\u005f_proto__":{"x":1}}',
            // Values JSON would read differently or reject.
            '{"candidates":[{"content":{"parts":[{"text":"a"b"}],"role":"model"}}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a\\"}],"role":"model"}}]}',
            '{"candidates":[{"content":{"parts":[{"text":"\\x41"}],"role":"model"}}]}',
            '{"candidates":[{"content":{"parts":[{"text":"raw\ncontrol"}],"role":"model"}}]}',
            '{"candidates":[{"content":{"parts":[{"text":5}],"role":"model"}}]}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"x":}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}]',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}]}}',
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}]}\u00a0',
        ];
        for (const data of others) {
            expect(parseGeminiTextChunk(data), data).toBeUndefined();
            const { fast, slow } = both(data);
            expect(fast, data).toEqual(slow);
        }
    });

    it("agrees with JSON.parse on damaged chunks (a character dropped, doubled or changed)", () => {
        const next = random(2037);
        const pool = ['"', "\\", "}", "]", ",", ":", " ", "a", "\n", "{", "["];
        for (let round = 0; round < 3000; round++) {
            const text = TEXTS[Math.floor(next() * TEXTS.length)]!;
            const data = spaced(chunkOf(text, next), next);
            const at = Math.floor(next() * data.length);
            const kind = next();
            const damaged =
                kind < 0.33
                    ? data.slice(0, at) + data.slice(at + 1)
                    : kind < 0.66
                      ? data.slice(0, at) + data[at]! + data.slice(at)
                      : data.slice(0, at) +
                        pool[Math.floor(next() * pool.length)]! +
                        data.slice(at + 1);
            const { fast, slow } = both(damaged);
            expect(fast, damaged).toEqual(slow);
        }
    });

    it("gives a new object every time, however often the tail repeats", () => {
        const data =
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":5},"responseId":"r"}';
        const first = parseGeminiTextChunk(data)!;
        first.usageMetadata!.promptTokenCount = 99;
        first.responseId = "changed";
        for (let i = 0; i < 3; i++) expect(parseGeminiTextChunk(data)).toEqual(JSON.parse(data));
        const deep =
            '{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"usageMetadata":{"promptTokensDetails":[{"modality":"TEXT","tokenCount":5}]}}';
        const once = parseGeminiTextChunk(deep)!;
        (once.usageMetadata as Record<string, unknown>).promptTokensDetails = [];
        expect(parseGeminiTextChunk(deep)).toEqual(JSON.parse(deep));
    });

    it("leaves long chunks to the full parser without throwing", () => {
        for (const length of [20_000, 10_000_000]) {
            const data = JSON.stringify({
                candidates: [
                    { content: { parts: [{ text: 'a"\n'.repeat(length / 4) }], role: "model" } },
                ],
            });
            expect(parseGeminiTextChunk(data)).toBeUndefined();
        }
    });

    it("reads the same chunks from a CRLF stream however its bytes are split", () => {
        const next = random(99);
        const chunks = TEXTS.map((text) => chunkOf(text, next));
        const body = Buffer.from(
            chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("")
        );
        for (let round = 0; round < 50; round++) {
            const parser = new SseParser();
            const read: unknown[] = [];
            for (let start = 0; start < body.length;) {
                const end = Math.min(body.length, start + 1 + Math.floor(next() * 40));
                for (const event of parser.push(body.subarray(start, end)))
                    read.push(parseGeminiTextChunk(event.data) ?? JSON.parse(event.data));
                start = end;
            }
            for (const event of parser.finish()) read.push(JSON.parse(event.data));
            expect(read).toEqual(chunks);
        }
    });
});
