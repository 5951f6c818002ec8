import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

import { COGNITIVE_SERVICES_SCOPE, createEntraSigner } from "../../src/providers/azure-entra";
import { CredentialError, classifyError } from "../../src/providers/errors";
import type { OutgoingRequest } from "../../src/providers/types";
import { type FakeEntra, startFakeEntra } from "../kit/fake-entra";
import { type TestProxy, startTestProxy } from "../kit/test-proxy";

/** A request as streaming-post hands it to the signer. */
function outgoing(): OutgoingRequest {
    return {
        method: "POST",
        url: new URL("https://res.openai.azure.com/openai/v1/responses"),
        headers: { "content-type": "application/json" },
        body: Buffer.from("{}"),
    };
}

const signal = () => new AbortController().signal;

/**
 * MSAL keeps managed-identity tokens for the whole process, per audience:
 * each test asks for its own, so none is served another's token.
 */
let audiences = 0;
const freshScope = () => `https://test-${++audiences}.cognitiveservices.azure.com/.default`;

describe("Entra ID signer (managed identity endpoint)", () => {
    // MSAL settles on a managed-identity endpoint once per process: one fake serves the file.
    let entra: FakeEntra;
    beforeAll(async () => {
        entra = await startFakeEntra();
    });
    afterAll(() => entra.close());

    beforeEach(() => {
        entra.refuse(null);
        entra.hang(false);
        // Only the managed identity is available: no service principal, no CLI on PATH.
        for (const name of [
            "AZURE_TENANT_ID",
            "AZURE_CLIENT_ID",
            "AZURE_CLIENT_SECRET",
            "AZURE_FEDERATED_TOKEN_FILE",
            "AZURE_AUTHORITY_HOST",
            "HTTPS_PROXY",
            "HTTP_PROXY",
            "https_proxy",
            "http_proxy",
            "NO_PROXY",
            "no_proxy",
        ])
            vi.stubEnv(name, undefined);
        vi.stubEnv("IDENTITY_ENDPOINT", entra.identityEndpoint);
        vi.stubEnv("IDENTITY_HEADER", "fake-identity-header");
        vi.stubEnv("PATH", "/nonexistent");
    });
    afterEach(() => {
        vi.unstubAllEnvs();
    });

    it("adds a bearer token for the Cognitive Services audience and reuses it", async () => {
        const signer = createEntraSigner({
            scope: COGNITIVE_SERVICES_SCOPE,
            keyEnv: "AZURE_OPENAI_API_KEY",
        });
        const first = outgoing();
        await signer.sign(first, signal());
        const token = first.headers.authorization?.replace(/^Bearer /, "") ?? "";
        expect(entra.accepts(token, "https://cognitiveservices.azure.com")).toBe(true);
        const second = outgoing();
        await signer.sign(second, signal());
        expect(second.headers.authorization).toBe(first.headers.authorization);
        expect(entra.issued).toHaveLength(1);
    });

    it("a refused identity is a CredentialError naming how to sign in, classified as auth", async () => {
        entra.refuse("Identity not found");
        const signer = createEntraSigner({ scope: freshScope(), keyEnv: "AZURE_OPENAI_API_KEY" });
        const error = await signer.sign(outgoing(), signal()).then(
            () => undefined,
            (e: unknown) => e
        );
        expect(error).toBeInstanceOf(CredentialError);
        expect((error as Error).message).toMatch(/az login/);
        expect((error as Error).message).toMatch(/AZURE_OPENAI_API_KEY/);
        const classified = classifyError(error, { label: "Azure OpenAI", sdk: {} as never });
        expect(classified).toMatchObject({ kind: "auth", retryable: false });
    });

    it("a token endpoint that never answers fails within the time limit", async () => {
        entra.hang(true);
        const signer = createEntraSigner({
            scope: freshScope(),
            keyEnv: "AZURE_OPENAI_API_KEY",
            timeoutMs: 300,
        });
        const started = performance.now();
        const error = await signer.sign(outgoing(), signal()).then(
            () => undefined,
            (e: unknown) => e
        );
        expect(performance.now() - started).toBeLessThan(5_000);
        expect(error).toBeInstanceOf(CredentialError);
        expect((error as Error).message).toMatch(/no token after .* does not answer/);
    });

    describe("through a proxy", () => {
        let proxy: TestProxy;
        beforeEach(async () => {
            proxy = await startTestProxy();
        });
        afterEach(() => proxy.close());

        it("token requests follow HTTP_PROXY (North's transport)", async () => {
            vi.stubEnv("HTTP_PROXY", proxy.url);
            // Loopback goes direct unless NO_PROXY is set, even empty (proxy.ts).
            vi.stubEnv("NO_PROXY", "");
            const signer = createEntraSigner({
                scope: freshScope(),
                keyEnv: "AZURE_OPENAI_API_KEY",
            });
            const request = outgoing();
            await signer.sign(request, signal());
            expect(request.headers.authorization).toMatch(/^Bearer fake-entra-token-/);
            expect(proxy.seen.some((line) => line.includes("/msi/token"))).toBe(true);
        });
    });
});
