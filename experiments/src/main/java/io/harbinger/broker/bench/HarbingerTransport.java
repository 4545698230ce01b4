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
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Harbinger's broker on a loopback TCP port (Netty), in this JVM. Producers pipeline Submits (at
 * most 128 in flight each, like unconfirmed AMQP publishes bounded by a window); each consumer runs
 * the bundled client's pull, handle, ack loop on its own channel.
 */
final class HarbingerTransport implements Transport {

  private static final int PRODUCER_WINDOW = 128;

  private final BrokerServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Thread> consumers = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean();

  HarbingerTransport(BrokerConfig config) throws Exception {
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
    return "harbinger";
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
                  () ->
                      consumer.consume(
                          (PulledMessage m) -> {
                            sink.accept(m.getPayload().toByteArray());
                            return true;
                          },
                          running::get,
                          Duration.ofMillis(200)));
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
