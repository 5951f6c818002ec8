import { readFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { classifyError, parseRetryAfter } from "../../src/providers/errors";
import { createProvider } from "../../src/providers/index";

const anthropic = { label: "Anthropic API", sdk: Anthropic };
const openai = { label: "OpenAI API", sdk: OpenAI };

describe("parseRetryAfter", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    const h = (init: Record<string, string>): Headers => new Headers(init);

    it("reads seconds, milliseconds and HTTP dates", () => {
        expect(parseRetryAfter(h({ "retry-after": "2" }), now)).toBe(2000);
        expect(parseRetryAfter(h({ "retry-after": "0.5" }), now)).toBe(500);
        expect(parseRetryAfter(h({ "retry-after-ms": "1234" }), now)).toBe(1234);
        expect(parseRetryAfter(h({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now)).toBe(
            30_000
        );
    });

    it("ignores missing or garbage values", () => {
        expect(parseRetryAfter(undefined)).toBeUndefined();
        expect(parseRetryAfter(h({}), now)).toBeUndefined();
        expect(parseRetryAfter(h({ "retry-after": "soon" }), now)).toBeUndefined();
    });
});

describe("classifyError", () => {
    it("uses the SDK class for timeouts, connection errors and aborts", () => {
        expect(classifyError(new Anthropic.APIConnectionTimeoutError(), anthropic)).toMatchObject({
            kind: "timeout",
            retryable: true,
        });
        const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
        const conn = new OpenAI.APIConnectionError({
            cause: new TypeError("fetch failed", { cause: refused }),
        });
        expect(classifyError(conn, openai)).toMatchObject({ kind: "network", retryable: true });
        expect(classifyError(new OpenAI.APIUserAbortError(), openai)).toMatchObject({
            kind: "cancelled",
            retryable: false,
        });
    });

    it("treats a raw socket error as network and anything else as unknown", () => {
        const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
        expect(
            classifyError(new TypeError("terminated", { cause: reset }), anthropic)
        ).toMatchObject({
            kind: "network",
            retryable: true,
        });
        expect(classifyError(new Error("weird"), anthropic)).toMatchObject({
            kind: "unknown",
            retryable: false,
        });
    });

    it("classifies an in-stream Anthropic overloaded_error by its type", () => {
        const body = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
        const err = new Anthropic.APIError(undefined, body, undefined, undefined);
        expect(classifyError(err, anthropic)).toMatchObject({
            kind: "overloaded",
            retryable: true,
            message: "Anthropic API error: Overloaded",
        });
    });

    it("keeps messages on one short line", () => {
        const long = "x".repeat(1000);
        const err = new OpenAI.InternalServerError(
            500,
            { message: `a\n  b ${long}` },
            undefined,
            new Headers()
        );
        const e = classifyError(err, openai);
        expect(e.message).not.toContain("\n");
        expect(e.message.length).toBeLessThanOrEqual(300);
        expect(e.message.startsWith("OpenAI API 500: a b x")).toBe(true);
    });
});

describe("createProvider", () => {
    it("creates each API's provider", async () => {
        for (const api of ["anthropic", "openai-responses", "openai-chat"] as const) {
            const provider = await createProvider({
                api,
                apiKey: "k",
                baseUrl: "http://127.0.0.1:9",
            });
            expect(provider.api).toBe(api);
        }
    });

    it("loads provider modules (and their SDKs) only on demand", () => {
        const source = readFileSync(
            new URL("../../src/providers/index.ts", import.meta.url),
            "utf8"
        );
        const staticImports = source.match(/^import (?!type ).*$/gm) ?? [];
        expect(staticImports).toEqual([]);
        expect(source).not.toMatch(/from "(@anthropic-ai\/sdk|openai)"/);
    });
});
