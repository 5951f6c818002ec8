/**
 * `north -p --model vertex:…` end to end through the built CLI (needs
 * `node scripts/build.mjs` first): Google credentials from a generated
 * service-account key or the metadata server, a quota error retried, and a
 * refused credential reported with its fix.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeGoogleToken, startFakeGoogleToken } from "../kit/fake-google-token";
import { type FakeVertex, startFakeVertex } from "../kit/fake-vertex";
import { isolatedHome, runNorth } from "../kit/run-north";

const MODEL = "claude-sonnet-4-5@20250929";
const PROJECT = "north-print-project";

let tokens: FakeGoogleToken;
let vertex: FakeVertex;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
    tokens = await startFakeGoogleToken();
    tokens.metadataProject = PROJECT;
    vertex = await startFakeVertex({
        project: PROJECT,
        models: { "us-east5": [MODEL] },
        tokenValid: (token) => tokens.issued(token),
    });
});
afterAll(async () => {
    await vertex.close();
    await tokens.close();
});
beforeEach(() => {
    const isolated = isolatedHome();
    home = isolated.home;
    repo = mkdtempSync(join(tmpdir(), "north-vertex-repo-"));
    env = { ...isolated.env, ANTHROPIC_VERTEX_BASE_URL: vertex.baseUrl };
    tokens.mode = "ok";
    tokens.seen.length = 0;
    vertex.requests.length = 0;
});
afterEach(() => {
    expect(vertex.remaining()).toBe(0);
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
});

const print = (prompt: string) =>
    runNorth(["-p", prompt, "--path", repo, "--model", `vertex:${MODEL}`], { env });

describe("north -p with a Vertex AI model", () => {
    it("answers with a service-account key, retrying a quota error", async () => {
        const key = join(home, "key.json");
        writeFileSync(key, JSON.stringify(tokens.serviceAccount(PROJECT)));
        env.GOOGLE_APPLICATION_CREDENTIALS = key;
        vertex.enqueue(
            {
                error: {
                    status: 429,
                    statusName: "RESOURCE_EXHAUSTED",
                    message: "Quota exceeded for online_prediction_requests_per_base_model",
                    headers: { "retry-after": "0" },
                },
            },
            { text: "Hello from Claude on Vertex" }
        );
        const run = await print("say hello");
        expect(run.stderr).not.toContain("Error");
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("Hello from Claude on Vertex");
        expect(vertex.requests).toHaveLength(2);
        expect(vertex.requests[1]!.body["anthropic_version"]).toBe("vertex-2023-10-16");
        expect(tokens.seen).toEqual(["POST /token urn:ietf:params:oauth:grant-type:jwt-bearer"]);
    });

    it("answers on a Google Cloud machine from the metadata server", async () => {
        env.GCE_METADATA_HOST = tokens.metadataHost;
        vertex.enqueue({ text: "Hello from a VM" });
        const run = await print("say hello");
        expect(run.code).toBe(0);
        expect(run.stdout).toContain("Hello from a VM");
        expect(tokens.seen).toContain(
            "GET /computeMetadata/v1/instance/service-accounts/default/token"
        );
    });

    it("stops on refused credentials with the way to refresh them", async () => {
        const gcloud = join(home, "gcloud");
        env.CLOUDSDK_CONFIG = gcloud;
        env.ANTHROPIC_VERTEX_PROJECT_ID = PROJECT;
        mkdirSync(gcloud);
        writeFileSync(
            join(gcloud, "application_default_credentials.json"),
            JSON.stringify(tokens.userCredentials())
        );
        tokens.mode = "refuse";
        const run = await print("say hello");
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("Token has been expired or revoked.");
        expect(run.stderr).toContain(
            "run `gcloud auth application-default login` to sign in again"
        );
        expect(vertex.requests).toHaveLength(0);
        // An auth failure is not retried.
        expect(tokens.seen).toEqual(["POST /token refresh_token"]);
    });
});
