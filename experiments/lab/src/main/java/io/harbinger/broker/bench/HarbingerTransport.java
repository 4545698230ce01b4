package io.harbinger.broker.bench;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.harbinger.broker.BrokerConfig;
import io.harbinger.broker.BrokerServer;
import io.harbinger.broker.MessageBroker;
import io.harbinger.broker.client.BrokerConsumer;
import io.harbinger.broker.client.BrokerProducer;
import io.harbinger.predictor.Ticker;
import io.harbinger.proto.v1.BrokerGrpc;
import io.harbinger.proto.v1.PulledMessage;
import io.harbinger.proto.v1.RegisterProducerRequest;
import io.harbinger.proto.v1.SubmitRequest;
import io.harbinger.proto.v1.SubmitResponse;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Harbinger's broker on a loopback TCP port (Netty), in this JVM, each client on its own
 * connection. Streaming (the default): producers pipeline over SubmitStream (at most 128 unanswered
 * each, like AMQP publishes bounded by a window) and consumers use Consume with credit 1
 * (RabbitMQ's prefetch 1). Unary: producers pipeline unary Submits (128 in flight) and consumers
 * run Pull then Ack.
 */
final class HarbingerTransport implements Transport {

  private static final int PRODUCER_WINDOW = 128;

  private final BrokerServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Thread> consumers = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean();

  private final boolean streaming;

  HarbingerTransport(BrokerConfig config, boolean streaming) throws Exception {
    this.streaming = streaming;
    MessageBroker broker = new MessageBroker(config, null, Ticker.SYSTEM);
    server =
        new BrokerServer(
                NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                    .directExecutor(),
                broker)
            .start();
  }

  @Override
  public String name() {
    return streaming ? "harbinger" : "harbinger-unary";
  }

  private synchronized ManagedChannel channel() {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port())
            .usePlaintext()
            .directExecutor()
            .build();
    channels.add(channel);
    return channel;
  }

  @Override
  public Sender newSender() {
    if (streaming) {
      BrokerProducer.SubmitStream stream =
          BrokerProducer.register(channel()).openStream(PRODUCER_WINDOW);
      return new Sender() {
        @Override
        public void send(byte[] payload) throws InterruptedException {
          stream.submit(ByteString.copyFrom(payload), Map.of());
        }

        @Override
        public void close() throws InterruptedException {
          stream.close();
        }
      };
    }
    ManagedChannel channel = channel();
    BrokerGrpc.BrokerStub stub = BrokerGrpc.newStub(channel);
    String producerId =
        BrokerGrpc.newBlockingStub(channel)
            .registerProducer(RegisterProducerRequest.getDefaultInstance())
            .getProducerId();
    Semaphore window = new Semaphore(PRODUCER_WINDOW);
    AtomicBoolean failed = new AtomicBoolean();
    StreamObserver<SubmitResponse> release =
        new StreamObserver<>() {
          @Override
          public void onNext(SubmitResponse result) {}

          @Override
          public void onError(Throwable t) {
            failed.set(true);
            window.release();
          }

          @Override
          public void onCompleted() {
            window.release();
          }
        };
    return new Sender() {
      @Override
      public void send(byte[] payload) throws Exception {
        if (failed.get()) {
          throw new IllegalStateException("a Submit failed");
        }
        window.acquire();
        stub.submit(
            SubmitRequest.newBuilder()
                .setProducerId(producerId)
                .setPayload(ByteString.copyFrom(payload))
                .build(),
            release);
      }

      @Override
      public void flush() throws InterruptedException {
        window.acquire(PRODUCER_WINDOW);
        window.release(PRODUCER_WINDOW);
      }
    };
  }

  @Override
  public void startConsumers(int count, Sink sink) {
    running.set(true);
    for (int i = 0; i < count; i++) {
      BrokerConsumer consumer = BrokerConsumer.register(channel());
      Thread t =
          Thread.ofPlatform()
              .name("harbinger-consumer-" + i)
              .start(
                  () -> {
                    BrokerConsumer.Handler handler =
                        (PulledMessage m) -> {
                          sink.accept(m.getPayload().toByteArray());
                          return true;
                        };
                    if (streaming) {
                      consumer.consumeStream(handler, running::get, 1);
                    } else {
                      consumer.consume(handler, running::get, Duration.ofMillis(200));
                    }
                  });
      consumers.add(t);
    }
  }

  @Override
  public void stopConsumers() throws InterruptedException {
    running.set(false);
    for (Thread t : consumers) {
      t.join(5_000);
    }
    consumers.clear();
  }

  @Override
  public void close() throws Exception {
    stopConsumers();
    for (ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    server.close();
  }
}
