/**
 * Vertex AI on a Google Cloud machine: no key file, no gcloud credentials,
 * the token and the project from the metadata server (GCE_METADATA_HOST),
 * which wants `Metadata-Flavor: Google`. A file of its own: the library
 * remembers, per process, whether a metadata server answered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createVertexProvider } from "../../src/providers/vertex/index";
import { type FakeGoogleToken, startFakeGoogleToken } from "../kit/fake-google-token";
import { type FakeVertex, startFakeVertex } from "../kit/fake-vertex";
import { type TestProxy, startTestProxy } from "../kit/test-proxy";
import { collect, request } from "./helpers";

const MODEL = "claude-opus-4-1@20250805";

let tokens: FakeGoogleToken;
let vertex: FakeVertex;
let proxy: TestProxy;
let dir: string;

beforeAll(async () => {
    tokens = await startFakeGoogleToken();
    proxy = await startTestProxy();
    vertex = await startFakeVertex({
        project: tokens.metadataProject,
        models: { "us-east5": [MODEL] },
        tokenValid: (token) => tokens.issued(token),
    });
    dir = mkdtempSync(join(tmpdir(), "north-vertex-gce-"));
});
afterAll(async () => {
    vi.unstubAllEnvs();
    await vertex.close();
    await proxy.close();
    await tokens.close();
    rmSync(dir, { recursive: true, force: true });
});

it("takes the token and the project from the metadata server, through the proxy", async () => {
    vi.stubEnv("HOME", dir);
    vi.stubEnv("CLOUDSDK_CONFIG", join(dir, "gcloud"));
    vi.stubEnv("GOOGLE_APPLICATION_CREDENTIALS", undefined);
    vi.stubEnv("GOOGLE_CLOUD_PROJECT", undefined);
    vi.stubEnv("GCLOUD_PROJECT", undefined);
    vi.stubEnv("ANTHROPIC_VERTEX_PROJECT_ID", undefined);
    vi.stubEnv("CLOUD_ML_REGION", undefined);
    vi.stubEnv("GCE_METADATA_HOST", tokens.metadataHost);
    vi.stubEnv("METADATA_SERVER_DETECTION", "ping-only");
    vi.stubEnv("HTTP_PROXY", proxy.url);
    vi.stubEnv("NO_PROXY", "");
    const provider = createVertexProvider({
        api: "vertex",
        auth: "google",
        apiKey: "not-needed",
        baseUrl: vertex.baseUrl,
    });
    const probe = await provider.probe!(new AbortController().signal);
    expect(probe).toEqual({
        ok: true,
        detail: `the metadata server (${tokens.metadataHost}); project metadata-project, region us-east5 (${vertex.baseUrl})`,
    });
    vertex.enqueue({ text: "from a VM" });
    expect((await collect(provider, request({ apiModelId: MODEL }))).text).toBe("from a VM");
    expect(vertex.requests[0]!.project).toBe("metadata-project");
    expect(tokens.seen).toContain(
        "GET /computeMetadata/v1/instance/service-accounts/default/token"
    );
    expect(tokens.seen).toContain("GET /computeMetadata/v1/project/project-id");
    // Metadata requests went through North's transport, hence through the proxy.
    expect(proxy.seen.filter((line) => line.includes("/computeMetadata/")).length).toBe(
        tokens.seen.filter((line) => line.startsWith("GET /computeMetadata/")).length
    );
});
