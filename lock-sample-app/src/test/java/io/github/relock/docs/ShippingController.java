package io.github.relock.docs;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** The getting-started controller: POST /orders/{id}/ship, a 409 while another call ships the same order. */
// tag::http-controller[]
@RestController
class ShippingController {

    private final ShippingService shipping;

    ShippingController(ShippingService shipping) {
        this.shipping = shipping;
    }

    @PostMapping("/orders/{id}/ship")
    ShippingService.Shipment ship(@PathVariable long id) {
        return shipping.ship(new ShippingService.Order(id));   // LockNotAcquiredException → 409 (LockBusyAdvice)
    }
}
// end::http-controller[]
