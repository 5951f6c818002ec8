/**
 * The fake Google token endpoint, metadata server and Vertex AI refuse what
 * the real ones refuse, so the provider tests passing means something.
 */
import { createSign, generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGoogleToken, startFakeGoogleToken } from "../kit/fake-google-token";
import { type FakeVertex, startFakeVertex } from "../kit/fake-vertex";

const PROJECT = "p1";
const MODEL = "claude-opus-4-1@20250805";
let tokens: FakeGoogleToken;
let vertex: FakeVertex;
let token: string;

beforeAll(async () => {
    tokens = await startFakeGoogleToken();
    vertex = await startFakeVertex({
        project: PROJECT,
        models: { "us-east5": [MODEL] },
        tokenValid: (t) => tokens.issued(t),
    });
    const res = await fetch(
        `http://${tokens.metadataHost}/computeMetadata/v1/instance/service-accounts/default/token?scopes=https://www.googleapis.com/auth/cloud-platform`,
        {
            headers: { "metadata-flavor": "Google" },
        }
    );
    token = ((await res.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
    await vertex.close();
    await tokens.close();
});

function jwt(key: string, claims: Record<string, unknown>): string {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part(claims)}`;
    const signature = createSign("RSA-SHA256").update(unsigned).sign(key).toString("base64url");
    return `${unsigned}.${signature}`;
}

async function grant(
    assertion: string
): Promise<{ status: number; body: Record<string, unknown> }> {
    const res = await fetch(tokens.tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
            grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
            assertion,
        }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("the fake token endpoint", () => {
    it("grants a JWT signed by the key with Google's aud and the cloud-platform scope, and nothing else", async () => {
        const account = tokens.serviceAccount(PROJECT);
        const now = Math.floor(Date.now() / 1000);
        const claims = {
            iss: account["client_email"],
            scope: "https://www.googleapis.com/auth/cloud-platform",
            aud: "https://oauth2.googleapis.com/token",
            iat: now,
            exp: now + 3600,
        };
        expect((await grant(jwt(account["private_key"]!, claims))).status).toBe(200);
        const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 })
            .privateKey.export({ type: "pkcs8", format: "pem" })
            .toString();
        expect(await grant(jwt(stranger, claims))).toEqual({
            status: 400,
            body: { error: "invalid_grant", error_description: "Invalid JWT Signature." },
        });
        const key = account["private_key"]!;
        expect((await grant(jwt(key, { ...claims, aud: tokens.tokenUrl }))).status).toBe(400);
        expect((await grant(jwt(key, { ...claims, scope: "email" }))).status).toBe(400);
        expect((await grant(jwt(key, { ...claims, exp: now - 10 }))).status).toBe(400);
    });

    it("answers metadata requests only with Metadata-Flavor: Google", async () => {
        const res = await fetch(
            `http://${tokens.metadataHost}/computeMetadata/v1/project/project-id`
        );
        expect(res.status).toBe(403);
    });
});

describe("the fake Vertex AI", () => {
    const url = (model = MODEL, location = "us-east5") =>
        `${vertex.baseUrl}/projects/${PROJECT}/locations/${location}/publishers/anthropic/models/${model}:streamRawPredict`;
    const post = async (body: unknown, target = url(), auth = `Bearer ${token}`) => {
        const res = await fetch(target, {
            method: "POST",
            headers: { authorization: auth, "content-type": "application/json" },
            body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const good = {
        anthropic_version: "vertex-2023-10-16",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: "hi" }],
    };

    it("refuses a missing token, another project and a location without the model, in Google's shape", async () => {
        expect(await post(good, url(), "Bearer ya29.forged")).toMatchObject({
            status: 401,
            body: { error: { code: 401, status: "UNAUTHENTICATED" } },
        });
        expect(
            (await post(good, url().replace(`/projects/${PROJECT}/`, "/projects/other/"))).status
        ).toBe(403);
        expect(await post(good, url(MODEL, "europe-west1"))).toMatchObject({
            status: 404,
            body: { error: { code: 404, status: "NOT_FOUND" } },
        });
    });

    it("refuses a body with a model, without the Vertex version, or with unpaired tool_use / unknown signatures", async () => {
        const refused = async (body: unknown) => {
            const answer = await post(body);
            expect(answer.status).toBe(400);
            expect(answer.body).toMatchObject({
                type: "error",
                error: { type: "invalid_request_error" },
            });
            return (answer.body as unknown as { error: { message: string } }).error.message;
        };
        expect(await refused({ ...good, model: MODEL })).toContain("model");
        expect(await refused({ ...good, anthropic_version: "2023-06-01" })).toContain(
            "anthropic_version"
        );
        const toolUse = { type: "tool_use", id: "toolu_1", name: "read_file", input: {} };
        expect(
            await refused({
                ...good,
                messages: [
                    { role: "user", content: "hi" },
                    { role: "assistant", content: [toolUse] },
                    { role: "user", content: "no result" },
                ],
            })
        ).toContain("toolu_1");
        expect(
            await refused({
                ...good,
                messages: [
                    { role: "user", content: "hi" },
                    {
                        role: "assistant",
                        content: [
                            { type: "thinking", thinking: "t", signature: "forged" },
                            { type: "text", text: "a" },
                        ],
                    },
                    { role: "user", content: "next" },
                ],
            })
        ).toContain("signature");
    });
});
