/**
 * A whole Google Cloud for `north -p --model vertex:…`: the fake token
 * endpoint, a generated service-account key pointing at it, and the fake
 * Vertex AI serving one project; with the env that makes North use them.
 * For the bench paths (bench/paths/vertex-*.ts) and end-to-end runs.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GOOGLE_STATUS_NAMES } from "./fake-gemini";
import { startFakeGoogleToken } from "./fake-google-token";
import type { FakeTurn } from "./fake-llm-wire";
import { type FakeVertex, type FakeVertexTurn, startFakeVertex } from "./fake-vertex";

export const FAKE_CLOUD_PROJECT = "north-fake-project";

export interface FakeGoogleCloud {
    env: Record<string, string>;
    vertex: FakeVertex;
    /** A shared scripted turn, in Vertex's shapes (replies and errors; faults are not served). */
    enqueue(turn: FakeTurn): void;
    close(): Promise<void>;
}

export async function startFakeGoogleCloud(
    models: Record<string, string[]>
): Promise<FakeGoogleCloud> {
    const tokens = await startFakeGoogleToken();
    const vertex = await startFakeVertex({
        project: FAKE_CLOUD_PROJECT,
        models,
        tokenValid: (token) => tokens.issued(token),
    });
    const dir = mkdtempSync(join(tmpdir(), "north-fake-gcloud-"));
    const key = join(dir, "service-account.json");
    writeFileSync(key, JSON.stringify(tokens.serviceAccount(FAKE_CLOUD_PROJECT)));
    return {
        env: { GOOGLE_APPLICATION_CREDENTIALS: key, ANTHROPIC_VERTEX_BASE_URL: vertex.baseUrl },
        vertex,
        enqueue(turn) {
            if ("fault" in turn) {
                throw new Error(`the fake Vertex AI serves no "${turn.fault}" fault turns`);
            }
            const scripted: FakeVertexTurn =
                "error" in turn
                    ? {
                          error: {
                              status: turn.error.status,
                              statusName: GOOGLE_STATUS_NAMES[turn.error.status] ?? "UNKNOWN",
                              message: turn.error.message,
                              headers: turn.error.headers,
                          },
                      }
                    : turn;
            vertex.enqueue(scripted);
        },
        async close() {
            await vertex.close();
            await tokens.close();
            rmSync(dir, { recursive: true, force: true });
        },
    };
}
