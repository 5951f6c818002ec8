/**
 * Reads AWS event-stream framing (`application/vnd.amazon.eventstream`): each
 * frame is a 4-byte total length, a header length, a prelude CRC, headers, a
 * payload and a message CRC. The Smithy codec checks both CRCs and parses the
 * headers; this file only cuts the byte stream into frames.
 */

import { EventStreamCodec } from "@smithy/eventstream-codec";

/** One decoded frame: its headers (`:message-type`, `:event-type`…) and payload, as the codec gives them. */
export type EventStreamMessage = ReturnType<EventStreamCodec["decode"]>;

/** A header's value as text, or undefined when the frame does not carry it. */
export function headerText(message: EventStreamMessage, name: string): string | undefined {
    const header = message.headers[name];
    return header === undefined ? undefined : String(header.value);
}

/** A frame whose length or CRC does not check out: the stream cannot be trusted past it. */
export class CorruptFrameError extends Error {
    override name = "CorruptFrameError";
}

const PRELUDE_BYTES = 12;
const MIN_FRAME_BYTES = 16;
/** Bedrock's frames are a few KB; a larger length is a corrupt prelude, not a frame to wait for. */
const MAX_FRAME_BYTES = 16 * 1024 * 1024;

// As Buffer.toString: a leading BOM is kept, not dropped.
const DECODER = new TextDecoder("utf-8", { ignoreBOM: true });
const ENCODER = new TextEncoder();

// One native call each: for short header names and values this beats a
// per-byte loop about threefold (20k frames a long answer, six strings a frame).
const toUtf8 = (bytes: Uint8Array): string => DECODER.decode(bytes);
const fromUtf8 = (text: string): Uint8Array => ENCODER.encode(text);

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
    // The bytes read and not yet framed are buffer[offset…]: a frame is cut by
    // moving the offset, with no new Buffer per frame.
    private buffer: Buffer = Buffer.alloc(0);
    private offset = 0;

    /** Bytes of an incomplete frame still waiting for the rest. */
    get pending(): number {
        return this.buffer.length - this.offset;
    }

    push(chunk: Buffer): EventStreamMessage[] {
        this.buffer =
            this.pending === 0 ? chunk : Buffer.concat([this.buffer.subarray(this.offset), chunk]);
        this.offset = 0;
        const out: EventStreamMessage[] = [];
        const { buffer } = this;
        while (buffer.length - this.offset >= PRELUDE_BYTES) {
            const length = buffer.readUInt32BE(this.offset);
            if (length < MIN_FRAME_BYTES || length > MAX_FRAME_BYTES) {
                throw new CorruptFrameError(`a frame claims ${length} bytes`);
            }
            if (buffer.length - this.offset < length) break;
            out.push(
                this.decode(new Uint8Array(buffer.buffer, buffer.byteOffset + this.offset, length))
            );
            this.offset += length;
        }
        return out;
    }

    private decode(frame: Uint8Array): EventStreamMessage {
        try {
            return this.codec.decode(frame);
        } catch (error) {
            throw new CorruptFrameError(error instanceof Error ? error.message : String(error));
        }
    }
}
