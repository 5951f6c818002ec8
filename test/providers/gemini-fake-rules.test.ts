/**
 * The fake Gemini API refuses what the real one refuses: these bodies never
 * come from North's builder, so the rules are checked on them directly.
 */
import { describe, expect, it } from "vitest";
import { geminiBodyProblem } from "../kit/fake-gemini-rules";

const ctx = (model = "gemini-3-flash") => ({ model, issuedSignatures: new Set(["sig-1"]) });
const user = (text: string) => ({ role: "user", parts: [{ text }] });
const call = (name: string, extra: object = {}) => ({ functionCall: { name, args: {} }, ...extra });
const answer = (name: string) => ({ functionResponse: { name, response: { output: "x" } } });

describe("the fake Gemini API's body rules", () => {
    it("passes a well-formed tool loop", () => {
        const body = {
            contents: [
                user("go"),
                { role: "model", parts: [call("a", { thoughtSignature: "sig-1" }), call("b")] },
                { role: "user", parts: [answer("a"), answer("b")] },
            ],
        };
        expect(geminiBodyProblem(body, ctx())).toBeUndefined();
    });

    it("takes the googleSearch tool, beside function declarations on Gemini 3 only, and no unknown tool", () => {
        const declared = { functionDeclarations: [{ name: "read_file" }] };
        const search = { googleSearch: {} };
        const body = (...tools: object[]) => ({ contents: [user("go")], tools });
        expect(geminiBodyProblem(body(search), ctx("gemini-2.5-pro"))).toBeUndefined();
        expect(geminiBodyProblem(body(declared, search), ctx())).toBeUndefined();
        expect(geminiBodyProblem(body(declared, search), ctx("gemini-2.5-pro"))).toMatch(
            /function calling is unsupported together with Google Search/
        );
        expect(geminiBodyProblem(body({ googleSearchRetrieval: {} }), ctx())).toMatch(
            /Unknown name "googleSearchRetrieval" at 'tools\[0\]'/
        );
        expect(geminiBodyProblem(body({ googleSearch: { maxUses: 2 } }), ctx())).toMatch(
            /Unknown name "maxUses" at 'tools\[0\].google_search'/
        );
    });

    it("refuses an unsigned first call of the current turn on Gemini 3, not on 2.5", () => {
        const body = {
            contents: [
                user("go"),
                { role: "model", parts: [call("a")] },
                { role: "user", parts: [answer("a")] },
            ],
        };
        expect(geminiBodyProblem(body, ctx())).toMatch(/missing a `thought_signature`/);
        expect(geminiBodyProblem(body, ctx("gemini-2.5-pro"))).toBeUndefined();
    });

    it("refuses a signature it never issued, unanswered calls, and roles out of turn", () => {
        const forged = {
            contents: [
                user("go"),
                { role: "model", parts: [call("a", { thoughtSignature: "forged" })] },
                { role: "user", parts: [answer("a")] },
            ],
        };
        expect(geminiBodyProblem(forged, ctx())).toMatch(/Thought signature is not valid/);
        const unanswered = {
            contents: [
                user("go"),
                { role: "model", parts: [call("a", { thoughtSignature: "sig-1" }), call("b")] },
                { role: "user", parts: [answer("a")] },
            ],
        };
        expect(geminiBodyProblem(unanswered, ctx())).toMatch(/number of function response parts/);
        expect(geminiBodyProblem({ contents: [user("a"), user("b")] }, ctx())).toMatch(/alternate/);
        expect(
            geminiBodyProblem({ contents: [{ role: "model", parts: [{ text: "x" }] }] }, ctx())
        ).toMatch(/start with a user turn/);
    });

    it("refuses GIFs, bad base64, both thinking controls, and a system instruction without parts", () => {
        const gif = {
            contents: [
                { role: "user", parts: [{ inlineData: { mimeType: "image/gif", data: "R0lG" } }] },
            ],
        };
        expect(geminiBodyProblem(gif, ctx())).toMatch(/Unsupported MIME type: image\/gif/);
        const bad = {
            contents: [
                { role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "%%%" } }] },
            ],
        };
        expect(geminiBodyProblem(bad, ctx())).toMatch(/Base64 decoding failed/);
        const both = {
            contents: [user("x")],
            generationConfig: { thinkingConfig: { thinkingLevel: "high", thinkingBudget: 10 } },
        };
        expect(geminiBodyProblem(both, ctx())).toMatch(
            /only one of thinking budget and thinking level/
        );
        const level25 = {
            contents: [user("x")],
            generationConfig: { thinkingConfig: { thinkingLevel: "high" } },
        };
        expect(geminiBodyProblem(level25, ctx("gemini-2.5-flash"))).toMatch(/not supported/);
        expect(
            geminiBodyProblem({ contents: [user("x")], systemInstruction: { parts: [] } }, ctx())
        ).toMatch(/must not be empty/);
    });
});
