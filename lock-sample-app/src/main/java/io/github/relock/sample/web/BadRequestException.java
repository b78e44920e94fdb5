package io.github.relock.sample.web;

/** A request the API refuses as it is: 400 with the reason. */
class BadRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    BadRequestException(String message) {
        super(message);
    }
}
