package io.harbinger.broker;

import io.grpc.BindableService;
import io.grpc.ForwardingServerBuilder;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;

/** A server builder that wraps every service with test interceptors. */
final class InterceptingBuilder extends ForwardingServerBuilder<InterceptingBuilder> {

  private final ServerBuilder<?> delegate;
  private final ServerInterceptor[] interceptors;

  InterceptingBuilder(ServerBuilder<?> delegate, ServerInterceptor... interceptors) {
    this.delegate = delegate;
    this.interceptors = interceptors;
  }

  @Override
  protected ServerBuilder<?> delegate() {
    return delegate;
  }

  @Override
  public InterceptingBuilder addService(BindableService service) {
    delegate.addService(ServerInterceptors.intercept(service, interceptors));
    return this;
  }
}
