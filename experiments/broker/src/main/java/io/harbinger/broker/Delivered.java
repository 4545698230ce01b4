package io.harbinger.broker;

import com.google.protobuf.ByteString;
import java.util.Map;

/**
 * What a Pull hands to a consumer.
 *
 * @param messageId the message id
 * @param payload the body
 * @param headers the headers, including {@code x-harbinger-producer}
 * @param attemptToken this delivery's token
 * @param leaseMillis the lease, from dispatch
 * @param deliveryCount deliveries of this message so far, this one included
 */
public record Delivered(
    String messageId,
    ByteString payload,
    Map<String, String> headers,
    String attemptToken,
    long leaseMillis,
    int deliveryCount) {}
