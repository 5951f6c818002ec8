/**
 * Worker-thread entry (dist/image-resize-worker.js): scales one image per
 * message, so decoding a large photo never freezes the chat.
 */
import { parentPort } from "node:worker_threads";
import { type ScaleJob, type ScaleOutcome, scaleImage } from "./image-resize-codecs";

parentPort?.on("message", (job: ScaleJob) => {
    let outcome: ScaleOutcome;
    try {
        outcome = scaleImage(job);
    } catch (error) {
        outcome = { ok: false, corrupt: error instanceof Error ? error.message : String(error) };
    }
    const transfer = outcome.ok ? [outcome.bytes.buffer as ArrayBuffer] : [];
    parentPort?.postMessage(outcome, transfer);
});
