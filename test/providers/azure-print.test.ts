import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { type FakeAzure, startFakeAzure } from "../kit/fake-azure";
import { type FakeEntra, startFakeEntra } from "../kit/fake-entra";
import { isolatedHome, runNorth } from "../kit/run-north";
import { TEST_CERT_PATH, startTlsFront } from "../kit/test-proxy";

const KEY = "azure-print-key";
const TENANT = "00000000-0000-0000-0000-00000000cafe";
const CLIENT = "11111111-2222-3333-4444-555555555555";

let azure: FakeAzure;
let entra: FakeEntra;
let authority: { url: string; close(): Promise<void> };
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    entra = await startFakeEntra({ tenantId: TENANT, clientId: CLIENT, clientSecret: "s3cret" });
    // @azure/identity takes an authority over https only: a TLS front with the test certificate.
    authority = await startTlsFront(entra.url);
});
afterAll(async () => {
    await authority.close();
    await entra.close();
});

beforeEach(async () => {
    azure = await startFakeAzure({
        apiKey: KEY,
        deployments: ["prod-gpt"],
        acceptsToken: (token, audience) => entra.accepts(token, audience),
    });
    repo = mkdtempSync(join(tmpdir(), "north-azure-"));
    mkdirSync(join(repo, "src"));
    const isolated = isolatedHome();
    home = isolated.home;
    env = { ...isolated.env, AZURE_OPENAI_ENDPOINT: azure.url };
    entra.refuse(null);
});
afterEach(async () => {
    expect(azure.remaining()).toBe(0);
    await azure.close();
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
});

const json = (text: string) => JSON.parse(text.trim()) as Record<string, unknown>;

describe("north -p on Azure OpenAI", () => {
    it("answers through a deployment with the resource's key", async () => {
        azure.enqueue({
            text: "Answer from the prod-gpt deployment.",
            usage: { input: 40, output: 8 },
        });
        const run = await runNorth(
            ["-p", "hello", "--path", repo, "--model", "azure:prod-gpt", "--output-format", "json"],
            { env: { ...env, AZURE_OPENAI_API_KEY: KEY } }
        );
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(json(run.stdout)).toMatchObject({
            type: "result",
            is_error: false,
            result: "Answer from the prod-gpt deployment.",
        });
        expect(azure.requests[0]?.headers["api-key"]).toBe(KEY);
    });

    it("a throttled request (429) is retried after Azure's retry-after-ms and then answers", async () => {
        azure.enqueue(
            {
                error: {
                    status: 429,
                    code: "429",
                    message: "Requests to the Responses API have exceeded call rate limit.",
                    headers: { "retry-after-ms": "20", "retry-after": "1" },
                },
            },
            { text: "Answered after the limit." }
        );
        const run = await runNorth(["-p", "hello", "--path", repo, "--model", "azure:prod-gpt"], {
            env: { ...env, AZURE_OPENAI_API_KEY: KEY },
        });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Answered after the limit.\n");
        expect(azure.requests.filter((r) => r.path === "/openai/v1/responses")).toHaveLength(2);
    });

    it("signs in as a service principal (client credentials) when no key is set", async () => {
        azure.enqueue({ text: "Signed in with Entra ID." });
        const run = await runNorth(["-p", "hello", "--path", repo, "--model", "azure:prod-gpt"], {
            env: {
                ...env,
                AZURE_TENANT_ID: TENANT,
                AZURE_CLIENT_ID: CLIENT,
                AZURE_CLIENT_SECRET: "s3cret",
                AZURE_AUTHORITY_HOST: authority.url,
                NODE_EXTRA_CA_CERTS: TEST_CERT_PATH,
            },
        });
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(run.stdout).toBe("Signed in with Entra ID.\n");
        expect(azure.requests[0]?.headers.authorization).toMatch(/^Bearer fake-entra-token-/);
        expect(entra.seen).toContain(`POST /${TENANT}/oauth2/v2.0/token`);
    });

    it("an expired client secret ends the run with a message saying how to sign in", async () => {
        entra.refuse("AADSTS7000222: The provided client secret keys for app are expired.");
        const run = await runNorth(["-p", "hello", "--path", repo, "--model", "azure:prod-gpt"], {
            env: {
                ...env,
                AZURE_TENANT_ID: TENANT,
                AZURE_CLIENT_ID: CLIENT,
                AZURE_CLIENT_SECRET: "s3cret",
                AZURE_AUTHORITY_HOST: authority.url,
                NODE_EXTRA_CA_CERTS: TEST_CERT_PATH,
            },
        });
        expect(run.code).not.toBe(0);
        expect(run.stderr).toMatch(/AADSTS7000222/);
        expect(run.stderr).toMatch(/az login/);
        expect(azure.requests).toHaveLength(0);
    });
});

describe("north -p on Microsoft Foundry", () => {
    it("answers through Foundry's Anthropic endpoint with the resource's key", async () => {
        const foundry = await startFakeAzure({ apiKey: KEY, deployments: ["claude-sonnet-4-5"] });
        try {
            foundry.enqueue({ text: "Claude on Foundry." });
            const run = await runNorth(
                ["-p", "hello", "--path", repo, "--model", "foundry:claude-sonnet-4-5"],
                {
                    env: {
                        ...env,
                        ANTHROPIC_FOUNDRY_BASE_URL: foundry.foundryBaseUrl,
                        ANTHROPIC_FOUNDRY_API_KEY: KEY,
                    },
                }
            );
            expect(run.stderr).toBe("");
            expect(run.code).toBe(0);
            expect(run.stdout).toBe("Claude on Foundry.\n");
            expect(foundry.requests[0]?.headers["x-api-key"]).toBe(KEY);
        } finally {
            await foundry.close();
        }
    });
});
