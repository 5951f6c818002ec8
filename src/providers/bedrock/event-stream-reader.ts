/**
 * Reads AWS event-stream framing (`application/vnd.amazon.eventstream`): each
 * frame is a 4-byte total length, a header length, a prelude CRC, headers, a
 * payload and a message CRC. The Smithy codec checks both CRCs and parses the
 * headers; this file only cuts the byte stream into frames.
 */

import { EventStreamCodec } from "@smithy/eventstream-codec";

/** One decoded frame: its string headers (`:message-type`, `:event-type`…) and payload. */
export interface EventStreamMessage {
    headers: Record<string, string>;
    body: Uint8Array;
}

/** A frame whose length or CRC does not check out: the stream cannot be trusted past it. */
export class CorruptFrameError extends Error {
    override name = "CorruptFrameError";
}

const PRELUDE_BYTES = 12;
const MIN_FRAME_BYTES = 16;
/** Bedrock's frames are a few KB; a larger length is a corrupt prelude, not a frame to wait for. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

const DECODER = new TextDecoder();
const ASCII_ONLY = /^[ -~]*$/;

/** Header names and values are short ASCII: decoded without allocating a Buffer each (20k frames a long answer). */
function toUtf8(bytes: Uint8Array): string {
    if (bytes.byteLength <= 64) {
        let text = "";
        for (let i = 0; i < bytes.byteLength; i++) {
            const byte = bytes[i]!;
            if (byte >= 0x80) return DECODER.decode(bytes);
            text += String.fromCharCode(byte);
        }
        return text;
    }
    return DECODER.decode(bytes);
}

function fromUtf8(text: string): Uint8Array {
    if (text.length <= 64 && ASCII_ONLY.test(text)) {
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        return bytes;
    }
    return Buffer.from(text, "utf8");
}

/** The codec Bedrock's framing is read (and, in the tests' fake, written) with. */
export function createEventStreamCodec(): EventStreamCodec {
    return new EventStreamCodec(toUtf8, fromUtf8);
}

/**
 * The frames of a byte stream, one batch per read (all the frames completed
 * by the bytes that arrived). Ends when the stream ends; bytes left over then
 * mean the last frame was cut off, which the caller learns from `pending`.
 */
export class EventStreamFramer {
    private readonly codec = createEventStreamCodec();
    private buffer: Buffer = Buffer.alloc(0);

    /** Bytes of an incomplete frame still waiting for the rest. */
    get pending(): number {
        return this.buffer.length;
    }

    push(chunk: Buffer): EventStreamMessage[] {
        this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
        const out: EventStreamMessage[] = [];
        while (this.buffer.length >= PRELUDE_BYTES) {
            const length = this.buffer.readUInt32BE(0);
            if (length < MIN_FRAME_BYTES || length > MAX_FRAME_BYTES) {
                throw new CorruptFrameError(`a frame claims ${length} bytes`);
            }
            if (this.buffer.length < length) break;
            const frame = this.buffer.subarray(0, length);
            this.buffer = this.buffer.subarray(length);
            out.push(this.decode(frame));
        }
        return out;
    }

    private decode(frame: Buffer): EventStreamMessage {
        let decoded: ReturnType<EventStreamCodec["decode"]>;
        try {
            decoded = this.codec.decode(frame);
        } catch (error) {
            throw new CorruptFrameError(error instanceof Error ? error.message : String(error));
        }
        const headers: Record<string, string> = {};
        for (const [name, header] of Object.entries(decoded.headers)) {
            headers[name] = String(header.value);
        }
        return { headers, body: decoded.body };
    }
}
